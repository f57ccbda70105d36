package github

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Retry defaults: GitHub asks to wait at least a minute after a secondary rate limit that
// names no time, and a wait longer than maxWait (a primary limit resetting in half an
// hour) is not worth holding a job for: the error is reported instead.
const (
	defaultAttempts  = 4
	defaultBackoff   = time.Second
	defaultMaxWait   = time.Minute
	secondaryMinWait = time.Minute
	peekBytes        = 4 << 10
)

// Option configures a Client.
type Option func(*retrier)

// WithSleep replaces the wait between attempts; it must return early with the context's
// error when the context ends. Tests record the waits instead of sleeping.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(r *retrier) { r.sleep = sleep }
}

// WithClock sets the clock a rate limit's reset time is read against.
func WithClock(now func() time.Time) Option {
	return func(r *retrier) { r.now = now }
}

// retrier sends each request through do, trying again what GitHub says is transient: a
// rate limit (429, or 403 with Retry-After, x-ratelimit-remaining 0 or a secondary rate
// limit message), a 500/502/503/504, a lost connection. A 5xx or a lost connection is
// only retried when repeating the request is harmless: a POST of a comment may have
// been made before the error, and a second one would be posted.
type retrier struct {
	do       func(*http.Request) (*http.Response, error)
	attempts int
	backoff  time.Duration
	maxWait  time.Duration
	sleep    func(context.Context, time.Duration) error
	now      func() time.Time
}

func newRetrier(hc *http.Client, opts []Option) *retrier {
	r := &retrier{
		do:       hc.Do,
		attempts: defaultAttempts,
		backoff:  defaultBackoff,
		maxWait:  defaultMaxWait,
		sleep:    sleepContext,
		now:      time.Now,
	}

	for _, opt := range opts {
		opt(r)
	}

	return r
}

// RoundTrip is one call, with its retries. Each attempt goes through the caller's HTTP
// client, so its timeout bounds one attempt, not the waits between them.
func (r *retrier) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.do(req)

		// The caller's client names the request again around what we return.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}

		wait, again := r.verdict(req, resp, err, attempt)
		if !again || attempt >= r.attempts || wait > r.maxWait || req.Context().Err() != nil {
			return resp, err
		}

		next, rerr := rewind(req)
		if rerr != nil {
			return resp, err
		}

		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, peekBytes))
			_ = resp.Body.Close()
		}

		if serr := r.sleep(req.Context(), wait); serr != nil {
			return nil, serr
		}

		req = next
	}
}

// verdict says whether the answer to attempt is worth another try, and after how long.
func (r *retrier) verdict(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	backoff := r.backoff << (attempt - 1)

	if err != nil {
		return backoff, repeatable(req)
	}

	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusForbidden:
		return r.rateLimitWait(resp, backoff)
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !repeatable(req) {
			return 0, false
		}

		if d, ok := retryAfter(resp.Header); ok {
			return max(d, backoff), true
		}

		return backoff, true
	default:
		return 0, false
	}
}

// rateLimitWait is how long GitHub asks to wait before a rate-limited request is sent
// again; a 403 that is no rate limit (a token that may not write) is not retried. The
// request was refused, not carried out, so any request may be repeated.
func (r *retrier) rateLimitWait(resp *http.Response, backoff time.Duration) (time.Duration, bool) {
	if d, ok := retryAfter(resp.Header); ok {
		return d, true
	}

	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(r.now()), 0), true
		}
	}

	if secondary(resp) {
		return max(secondaryMinWait, backoff), true
	}

	if resp.StatusCode == http.StatusTooManyRequests {
		return backoff, true
	}

	return 0, false
}

// secondary reports whether a 403 or 429 says a secondary rate limit was hit; the
// body is read and put back for go-github.
func secondary(resp *http.Response) bool {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, peekBytes))
	rest := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), rest), rest}

	text := strings.ToLower(string(data))

	return strings.Contains(text, "secondary rate limit") || strings.Contains(text, "secondary-rate-limits")
}

func retryAfter(h http.Header) (time.Duration, bool) {
	secs, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || secs < 0 {
		return 0, false
	}

	return time.Duration(secs) * time.Second, true
}

// repeatable: sending the request twice does no more than sending it once. Of talops'
// POSTs, creating a label (a second one is refused as already_exists) and adding labels
// (a set) are; creating a comment is not.
func repeatable(req *http.Request) bool {
	return req.Method != http.MethodPost || strings.HasSuffix(req.URL.Path, "/labels")
}

// rewind is req ready to be sent again, with its body from the start.
func rewind(req *http.Request) (*http.Request, error) {
	next := req.Clone(req.Context())

	if req.Body == nil || req.Body == http.NoBody {
		return next, nil
	}

	if req.GetBody == nil {
		return nil, http.ErrBodyReadAfterClose
	}

	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}

	next.Body = body

	return next, nil
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
