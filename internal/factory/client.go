// Package factory is a client of the Talos Image Factory HTTP API: it
// registers schematics and lists Talos versions and official extensions.
package factory

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	defaultRetries      = 3
	defaultInitialDelay = time.Second
	defaultMaxDelay     = 30 * time.Second
	defaultTimeout      = 60 * time.Second

	maxBodyBytes      = 8 << 20 // the extension list is tens of kilobytes
	maxErrorBodyBytes = 512
)

// Client talks to one Image Factory.
type Client struct {
	base         *url.URL
	http         *http.Client
	timeout      time.Duration
	retries      int
	initialDelay time.Duration
	maxDelay     time.Duration
	sleep        func(context.Context, time.Duration) error
	now          func() time.Time
	userAgent    string
	cache        *diskCache
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client; tests pass the fake factory's.
func WithHTTPClient(c *http.Client) Option {
	return func(cl *Client) { cl.http = c }
}

// WithTimeout bounds each attempt (default 60s); the caller's context bounds
// the whole call, retries included.
func WithTimeout(d time.Duration) Option {
	return func(cl *Client) { cl.timeout = d }
}

// WithRetries sets how many times a failed attempt is retried (default 3).
// Only transport errors, timeouts, 5xx and 429 are retried.
func WithRetries(n int) Option {
	return func(cl *Client) { cl.retries = max(n, 0) }
}

// WithBackoff sets the delay before the first retry and its cap; the delay
// doubles on each retry (default 1s, capped at 30s).
func WithBackoff(initial, maxDelay time.Duration) Option {
	return func(cl *Client) { cl.initialDelay, cl.maxDelay = initial, maxDelay }
}

// WithSleep replaces the wait between attempts; it must return early with the
// context's error when the context ends. Tests record the delays instead of waiting.
func WithSleep(sleep func(context.Context, time.Duration) error) Option {
	return func(cl *Client) { cl.sleep = sleep }
}

// WithClock sets the clock the cache reads.
func WithClock(now func() time.Time) Option {
	return func(cl *Client) { cl.now = now }
}

// WithCache keeps the version and extension listings in dir for ttl. A
// registration is never cached: the factory must have seen the schematic.
func WithCache(dir string, ttl time.Duration) Option {
	return func(cl *Client) { cl.cache = &diskCache{dir: dir, ttl: ttl} }
}

// WithUserAgent sets the User-Agent header (default "talops").
func WithUserAgent(ua string) Option {
	return func(cl *Client) { cl.userAgent = ua }
}

// New returns a client of the factory at baseURL ("https://factory.talos.dev";
// a trailing slash and a path prefix are allowed).
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("image factory URL: %w", err)
	}

	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("image factory URL %q: want http(s)://host[/path]", u.Redacted())
	}

	c := &Client{
		base:         u,
		http:         &http.Client{},
		timeout:      defaultTimeout,
		retries:      defaultRetries,
		initialDelay: defaultInitialDelay,
		maxDelay:     defaultMaxDelay,
		sleep:        sleepContext,
		now:          time.Now,
		userAgent:    "talops",
	}

	for _, opt := range opts {
		opt(c)
	}

	return c, nil
}

// BaseURL returns the factory's base URL with credentials redacted.
func (c *Client) BaseURL() string { return c.base.Redacted() }

type request struct {
	op          string // for messages: "register schematic"
	method      string
	path        string // below the base URL, already escaped
	body        []byte
	contentType string
}

// do sends req, retrying what may be transient, and returns the body of a
// 2xx response.
func (c *Client) do(ctx context.Context, req request) ([]byte, error) {
	u := c.base.JoinPath(req.path)
	shown := u.Redacted()

	var (
		lastErr    error
		lastStatus int
		lastWait   time.Duration
		attempts   int
	)

	for attempt := 0; attempt <= c.retries; attempt++ {
		if attempt > 0 {
			if err := c.sleep(ctx, c.delay(attempt, lastWait)); err != nil {
				return nil, fmt.Errorf("%s: %w", req.op, err)
			}
		}

		attempts++

		body, status, wait, err := c.attempt(ctx, req, u)
		if err == nil {
			return body, nil
		}

		if ctx.Err() != nil {
			// The caller gave up: that is not the factory being down.
			return nil, fmt.Errorf("%s: %w", req.op, ctx.Err())
		}

		if !retryable(status) {
			return nil, fmt.Errorf("%s: %w", req.op, err)
		}

		lastErr, lastStatus, lastWait = err, status, wait
	}

	return nil, &UnavailableError{Op: req.op, URL: shown, Attempts: attempts, StatusCode: lastStatus, Err: lastErr}
}

// attempt sends one request. status is 0 when no response arrived; wait is
// the server's Retry-After.
func (c *Client) attempt(ctx context.Context, req request, u *url.URL) (body []byte, status int, wait time.Duration, err error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc

		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}

	var rd io.Reader
	if req.body != nil {
		rd = bytes.NewReader(req.body)
	}

	hreq, err := http.NewRequestWithContext(ctx, req.method, u.String(), rd)
	if err != nil {
		return nil, 0, 0, err
	}

	hreq.Header.Set("User-Agent", c.userAgent)
	hreq.Header.Set("Accept", "application/json")

	if req.contentType != "" {
		hreq.Header.Set("Content-Type", req.contentType)
	}

	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, 0, 0, err
	}
	defer resp.Body.Close() //nolint:errcheck // the body has been read; a close error changes nothing

	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("read response of %s %s: %w", req.method, u.Redacted(), err)
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, resp.StatusCode, retryAfter(resp.Header.Get("Retry-After")), &StatusError{
			Method: req.method, URL: u.Redacted(), StatusCode: resp.StatusCode,
			Body: errorBody(body),
		}
	}

	if len(body) > maxBodyBytes {
		return nil, resp.StatusCode, 0, fmt.Errorf("response of %s %s is larger than %d bytes", req.method, u.Redacted(), maxBodyBytes)
	}

	return body, resp.StatusCode, 0, nil
}

// retryable: no response (transport error, timeout), a server error, or a
// rate limit. POST /schematics is content-addressed, so repeating it is safe.
func retryable(status int) bool {
	return status == 0 || status >= 500 || status == http.StatusTooManyRequests
}

// delay before retry n (1-based): doubling from the initial delay, at least
// what the server asked for with Retry-After, never above the cap.
func (c *Client) delay(n int, serverWait time.Duration) time.Duration {
	d := c.initialDelay
	for i := 1; i < n && d < c.maxDelay; i++ {
		d *= 2
	}

	return min(max(d, serverWait), c.maxDelay)
}

func retryAfter(v string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || secs < 0 {
		return 0
	}

	return time.Duration(secs) * time.Second
}

func errorBody(b []byte) string {
	s := strings.TrimSpace(string(b[:min(len(b), maxErrorBodyBytes)]))
	if len(b) > maxErrorBodyBytes {
		s += "…"
	}

	return s
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
