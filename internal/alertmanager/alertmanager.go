// Package alertmanager speaks the Alertmanager API v2: the alerts that fire, and the
// silences apply holds while it changes a node. It uses the API's JSON shapes over
// net/http rather than its generated client (see docs/performance.md).
package alertmanager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// CreatedBy is the createdBy of every silence talops creates.
const CreatedBy = "talops"

// maxBody bounds what is read of an answer: a cluster's alerts, not a stream.
const maxBody = 16 << 20

// Client is an Alertmanager's API v2.
type Client struct {
	base     string
	matchers []string
	http     *http.Client
}

// New is the client of the Alertmanager at baseURL (talops.yaml's alertmanager.url):
// matchers, in Alertmanager's syntax, select the alerts Firing lists. A nil hc is
// http.DefaultClient.
func New(baseURL string, matchers []string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		// The URL is not repeated: it may hold a password.
		return nil, errors.New("alertmanager: the URL is not an http:// or https:// URL without credentials")
	}

	if hc == nil {
		hc = http.DefaultClient
	}

	return &Client{base: strings.TrimRight(u.String(), "/") + "/api/v2", matchers: matchers, http: hc}, nil
}

// Alert is a firing alert: its labels only (annotations may hold anything and are never
// read).
type Alert struct {
	Labels map[string]string `json:"labels"`
}

// Matcher is a matcher of a silence, as the API shapes it.
type Matcher struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	IsRegex bool   `json:"isRegex"`
	IsEqual bool   `json:"isEqual"`
}

// Silence is a silence to create (ID "") or to update, as the API's postableSilence
// shapes it.
type Silence struct {
	ID        string    `json:"id,omitempty"`
	Matchers  []Matcher `json:"matchers"`
	StartsAt  time.Time `json:"startsAt"`
	EndsAt    time.Time `json:"endsAt"`
	CreatedBy string    `json:"createdBy"`
	Comment   string    `json:"comment"`
}

// Firing lists the active alerts the matchers select that are neither silenced nor
// inhibited.
func (c *Client) Firing(ctx context.Context) ([]Alert, error) {
	q := url.Values{"active": {"true"}, "silenced": {"false"}, "inhibited": {"false"}}
	for _, m := range c.matchers {
		q.Add("filter", m)
	}

	var alerts []Alert
	if err := c.do(ctx, http.MethodGet, "/alerts?"+q.Encode(), nil, &alerts); err != nil {
		return nil, err
	}

	return alerts, nil
}

// Silence creates s, or updates the silence of its ID, and returns the silence's ID.
func (c *Client) Silence(ctx context.Context, s Silence) (string, error) {
	s.CreatedBy = CreatedBy

	var out struct {
		SilenceID string `json:"silenceID"`
	}
	if err := c.do(ctx, http.MethodPost, "/silences", s, &out); err != nil {
		return "", err
	}

	if out.SilenceID == "" {
		return "", errors.New("alertmanager: POST /silences: the answer names no silenceID")
	}

	return out.SilenceID, nil
}

// Expire ends the silence with this ID.
func (c *Client) Expire(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/silence/"+url.PathEscape(id), nil, nil)
}

// do sends a request with in as its JSON body (nil: none) and reads the JSON answer into
// out (nil: none is read). An answer other than 2xx is an error with its status and the
// start of its body (the API's own message).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader

	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}

		body = bytes.NewReader(b)
	}

	what := method + " " + strings.SplitN(path, "?", 2)[0]

	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("alertmanager: %s: %w", what, err)
	}

	req.Header.Set("Accept", "application/json")

	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("alertmanager: %s: %w", what, err)
	}
	defer func() { _ = resp.Body.Close() }()

	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("alertmanager: %s: %w", what, err)
	}

	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("alertmanager: %s: %s: %s", what, resp.Status, message(b))
	}

	if out == nil {
		return nil
	}

	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("alertmanager: %s: the answer is not the API's JSON: %w", what, err)
	}

	return nil
}

// message is the API's error message on one line, at most 200 bytes of it.
func message(b []byte) string {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = string(b)
	}

	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}

	return s
}
