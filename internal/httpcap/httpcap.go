// Package httpcap bounds how much of a response body an HTTP client reads: a hostile or
// broken server streaming an endless answer must fail the request, not fill the memory
// of the client that decodes it.
package httpcap

import (
	"fmt"
	"io"
	"net/http"
)

// TooLargeError is a response body longer than the client's limit.
type TooLargeError struct {
	Method, URL string
	Limit       int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("response of %s %s is larger than %d bytes: not read further", e.Method, e.URL, e.Limit)
}

// Transport wraps Next (nil: http.DefaultTransport) so that reading a response body past
// Limit bytes fails with a *TooLargeError; the bytes before it read as sent.
type Transport struct {
	Next  http.RoundTripper
	Limit int64
}

// RoundTrip implements http.RoundTripper.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}

	resp, err := next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}

	resp.Body = &body{rc: resp.Body, left: t.Limit, err: &TooLargeError{Method: req.Method, URL: req.URL.Redacted(), Limit: t.Limit}}

	return resp, nil
}

// body reads at most left more bytes of rc, then fails with err if rc holds more.
type body struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (b *body) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}

	if b.left <= 0 {
		// At the limit: only an answer that ends here is whole.
		var one [1]byte

		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, b.err
		}

		return 0, err
	}

	if int64(len(p)) > b.left {
		p = p[:b.left]
	}

	n, err := b.rc.Read(p)
	b.left -= int64(n)

	return n, err
}

func (b *body) Close() error { return b.rc.Close() }
