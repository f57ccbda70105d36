package proxmox

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// APIError is an answer of the Proxmox API outside 2xx. PVE puts its reason in the
// status line ("500 storage 'nope' does not exist"), a parameter's in the body
// ({"errors": {"storage": "No such storage."}}); a node the API cannot reach is a 595 or
// 596 of pveproxy with an empty body. Commands decide on StatusCode, never the text.
type APIError struct {
	// Node is the Proxmox node the request was for ("" when its path names none).
	Node       string
	StatusCode int
	// Reason is the status line's text, as PVE wrote it.
	Reason string
	// Errors are the reasons per parameter of a 400.
	Errors map[string]string
}

// Error names the cause: the node that is down, or PVE's reason and its parameters'.
func (e *APIError) Error() string {
	if e.Unreachable() {
		node := e.Node
		if node == "" {
			node = "the Proxmox node"
		}

		return strings.TrimSpace(fmt.Sprintf("node %s is unreachable (%d %s)", node, e.StatusCode, e.Reason))
	}

	msg := strings.TrimSpace(fmt.Sprintf("%d %s", e.StatusCode, e.Reason))

	var params []string
	for _, k := range slices.Sorted(maps.Keys(e.Errors)) {
		params = append(params, k+": "+strings.TrimSpace(e.Errors[k]))
	}

	if len(params) > 0 {
		msg += " (" + strings.Join(params, "; ") + ")"
	}

	return msg
}

// Unreachable reports whether pveproxy could not reach the node the request was for
// (595: no connection, 596: the connection broke or timed out).
func (e *APIError) Unreachable() bool { return e.StatusCode == 595 || e.StatusCode == 596 }

// maxErrorBody bounds how much of an error answer is read: PVE's are a few hundred bytes.
const maxErrorBody = 64 << 10

// maxBodyBytes bounds any answer: the largest PVE sends talops (a storage's content, a
// cluster's resources) are hundreds of kilobytes.
const maxBodyBytes = 16 << 20

// errorTransport turns every answer outside 2xx but 401 and 403 into an *APIError
// before go-proxmox reads it: go-proxmox keeps only the status line of a 500 and fails
// to decode the empty body of a 595 ("unexpected end of JSON input"), losing the cause.
// 401 and 403 are left to go-proxmox, which names them "not authorized".
type errorTransport struct{ next http.RoundTripper }

func (t errorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 300 || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return resp, err
	}

	defer resp.Body.Close() //nolint:errcheck // the answer is an error either way

	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))

	e := &APIError{
		Node:       pathNode(req.URL.Path),
		StatusCode: resp.StatusCode,
		Reason:     strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode))),
	}

	var envelope struct {
		Errors map[string]string `json:"errors"`
	}
	if json.Unmarshal(body, &envelope) == nil && len(envelope.Errors) > 0 {
		e.Errors = envelope.Errors
	}

	return nil, e
}

var nodePath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/nodes/([^/?]+)`) })

// pathNode is the node a request path names ("" for none).
func pathNode(path string) string {
	if m := nodePath().FindStringSubmatch(path); m != nil {
		return m[1]
	}

	return ""
}

// taskWarnings matches the exit status of a task that succeeded with warnings; PVE
// (PVE::Tools::upid_status_is_error) counts it a success, go-proxmox only "OK".
var taskWarnings = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^WARNINGS: \d+$`) })

// taskSucceeded reports whether a stopped task's exit status is a success in PVE.
func taskSucceeded(exitStatus string) bool {
	return exitStatus == "OK" || taskWarnings().MatchString(exitStatus)
}
