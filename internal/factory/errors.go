package factory

import (
	"fmt"
	"net/http"
	"strconv"
)

// UnavailableError means the factory could not be reached or kept failing
// (transport errors, 5xx, 429) through every attempt. Commands decide with
// errors.As whether to report "factory down" rather than a problem with the
// input.
type UnavailableError struct {
	Op       string // what was being done: "list Talos versions"
	URL      string // the request URL, credentials redacted
	Attempts int
	// StatusCode of the last response, 0 when the last attempt got none.
	StatusCode int
	Err        error // the last attempt's error: a transport error or a *StatusError
}

// Error names the operation, the attempts and the last failure.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: image factory unavailable after %d attempt(s): %v", e.Op, e.Attempts, e.Err)
}

// Unwrap returns the last attempt's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// StatusError is a response outside 2xx.
type StatusError struct {
	Method     string
	URL        string // credentials redacted
	StatusCode int
	// Body is the start of the response body, for the reader: the factory
	// puts its reason there. It is the server's text as sent: Error quotes it.
	Body string
}

// Error names the request, the status and the factory's reason, quoted: the body is
// whatever the server sent, and lands in findings, comments and annotations, so it
// must not bring its own lines or markup.
func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + strconv.Quote(e.Body)
	}

	return msg
}

// InvalidSchematicError is the factory refusing a schematic (400).
type InvalidSchematicError struct {
	Details string // the factory's reason
	Err     *StatusError
}

// Error gives the factory's reason, quoted as StatusError does.
func (e *InvalidSchematicError) Error() string {
	return "register schematic: the image factory refused it: " + strconv.Quote(e.Details)
}

// Unwrap returns the 400 response.
func (e *InvalidSchematicError) Unwrap() error { return e.Err }

// IDMismatchError is the factory answering a registration with an ID other
// than the one computed locally. Every ID talops printed or wrote (installer
// images, plans) would then name an image the factory does not build, so it
// is an error, not a warning.
type IDMismatchError struct {
	Local   string // computed by internal/schematic
	Factory string // returned by the factory
}

// Error gives both IDs.
func (e *IDMismatchError) Error() string {
	return fmt.Sprintf("image factory gave schematic ID %s, talops computed %s: "+
		"the factory encodes this schematic differently (a field talops does not know, or a changed encoder)",
		e.Factory, e.Local)
}

// InvalidVersionError is a Talos version the factory cannot parse. The factory answers a
// listing for one with 500 "internal server error" (its handler's parse error is mapped
// to no client status), which reads like the factory being down and is retried, so the
// version is checked before anything is asked.
type InvalidVersionError struct {
	Op      string // "list official extensions"
	Version string
}

// Error names the version and the form the factory takes.
func (e *InvalidVersionError) Error() string {
	return fmt.Sprintf("%s: %q is not a Talos version the image factory takes (vMAJOR.MINOR.PATCH, as in v1.13.9)", e.Op, e.Version)
}
