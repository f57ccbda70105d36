package githubtest

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// Fault is an answer GitHub gives instead of serving a request: its status, headers and
// body as the real API sends them.
type Fault struct {
	Status int
	Header http.Header
	Body   string
}

func (f Fault) write(w http.ResponseWriter) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}

	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, f.Body)
}

// secondaryBody is GitHub's answer to a secondary rate limit (REST docs, "Rate limits for
// the REST API": 403 or 429, an error message, retry-after when GitHub names a time).
const secondaryBody = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0400:1F2E:3D4C:5B6A:7980.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`

// SecondaryRateLimit is a 403 for a secondary rate limit; retryAfter > 0 sends Retry-After
// (in seconds), 0 sends none, as GitHub sometimes does. The primary limit is not spent.
func SecondaryRateLimit(retryAfter int) Fault {
	return Fault{Status: http.StatusForbidden, Header: rateHeader(retryAfter, "4990", ""), Body: secondaryBody}
}

// TooManyRequests is a 429 for a secondary rate limit, with Retry-After when retryAfter > 0.
func TooManyRequests(retryAfter int) Fault {
	return Fault{Status: http.StatusTooManyRequests, Header: rateHeader(retryAfter, "4990", ""), Body: secondaryBody}
}

// PrimaryRateLimit is a 403 for a spent primary rate limit, which resets at reset.
func PrimaryRateLimit(reset time.Time) Fault {
	return Fault{
		Status: http.StatusForbidden,
		Header: rateHeader(0, "0", strconv.FormatInt(reset.Unix(), 10)),
		Body:   `{"message":"API rate limit exceeded for installation ID 4242.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"}`,
	}
}

// ServerError is a transient 5xx of GitHub's.
func ServerError(status int) Fault {
	return Fault{Status: status, Body: `{"message":"Server Error"}`}
}

// BadCredentials is GitHub's 401 for a token it does not accept (expired, revoked).
func BadCredentials() Fault {
	return Fault{
		Status: http.StatusUnauthorized,
		Body:   `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}`,
	}
}

// Locked is GitHub's 403 to a comment on a locked conversation.
func Locked() Fault {
	return Fault{
		Status: http.StatusForbidden,
		Body:   `{"message":"Unable to create comment because issue is locked.","documentation_url":"https://docs.github.com/articles/locking-conversations/"}`,
	}
}

func rateHeader(retryAfter int, remaining, reset string) http.Header {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit", "5000")
	h.Set("X-Ratelimit-Remaining", remaining)
	h.Set("X-Ratelimit-Resource", "core")

	if reset != "" {
		h.Set("X-Ratelimit-Reset", reset)
	}

	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}

	return h
}

// FailNext answers the next requests of method to path (the full path:
// "/repos/lab/infra/issues/7/comments") with faults, one each, before serving again.
func (s *Server) FailNext(method, path string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()

	key := method + " " + path
	s.faults[key] = append(s.faults[key], faults...)
}

// After runs fn once, right after the next request of method to path was answered: what
// another job does between two of the client's calls.
func (s *Server) After(method, path string, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()

	key := method + " " + path
	s.after[key] = append(s.after[key], fn)
}

// nextFault takes the next fault queued for key. The caller holds the lock.
func (s *Server) nextFault(key string) (Fault, bool) {
	q := s.faults[key]
	if len(q) == 0 {
		return Fault{}, false
	}

	s.faults[key] = q[1:]

	return q[0], true
}
