// Package githubtest is a fake GitHub REST API for tests: it keeps comments and labels
// of one repository, one pull request's title and branch, and files of branches (the
// contents API), speaks the real paths and shapes (with pagination), records every
// request, and fails the test on any call it does not serve. It answers as GitHub does
// where jobs race (422 already_exists for a label made twice, 404 for a label removed
// twice), and serves the faults of faults.go on demand: rate limits, 5xx, 401, locks.
package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// Request is one call the fake received.
type Request struct {
	Method string
	Path   string
	Body   string
}

// Server is the fake.
type Server struct {
	URL string

	t  testing.TB
	mu sync.Mutex

	comments  []comment
	nextID    int64
	repoLabel map[string]bool
	prLabels  []string
	requests  []Request
	readOnly  bool
	pageSize  int
	// pulls are the pull requests listed for each commit.
	pulls map[string][]pull
	// faults are answered, in order, to the next requests of a method and path.
	faults map[string][]Fault
	// after run once, after the first request of a method and path was answered.
	after map[string][]func()
	// owner, repo and number name the pull request; pull describes it (nil: not served),
	// branches hold the files of each branch, commits what the contents API made.
	owner, repo string
	number      int
	pull        *Pull
	branches    map[string]map[string][]byte
	commits     []Commit
}

// CommitPull is a pull request the fake lists for a commit.
type CommitPull struct {
	Number         int
	Merged         bool
	BaseRef        string
	BaseSHA        string
	MergeCommitSHA string
}

// pull is the REST shape of a pull request, as much as talops reads.
type pull struct {
	Number         int     `json:"number"`
	State          string  `json:"state"`
	MergedAt       *string `json:"merged_at"`
	MergeCommitSHA string  `json:"merge_commit_sha,omitempty"`
	Base           struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"base"`
}

type comment struct {
	ID   int64  `json:"id"`
	Body string `json:"body"`
	User struct {
		Login string `json:"login"`
	} `json:"user"`
}

// Bot is the login the fake gives the comments the token under test writes.
const Bot = "github-actions[bot]"

// New starts a fake for owner/repo with one pull request.
func New(t testing.TB, owner, repo string, pr int) *Server {
	s := &Server{t: t, nextID: 1000, repoLabel: map[string]bool{}, pageSize: 100, pulls: map[string][]pull{},
		faults: map[string][]Fault{}, after: map[string][]func(){},
		owner: owner, repo: repo, number: pr, branches: map[string]map[string][]byte{},
	}

	base := "/repos/" + owner + "/" + repo
	issue := base + "/issues/" + strconv.Itoa(pr)

	mux := http.NewServeMux()
	mux.HandleFunc("GET "+base+"/commits/{sha}/pulls", s.listCommitPulls)
	mux.HandleFunc("GET "+issue+"/comments", s.listComments)
	mux.HandleFunc("POST "+issue+"/comments", s.createComment)
	mux.HandleFunc("PATCH "+base+"/issues/comments/{id}", s.editComment)
	mux.HandleFunc("GET "+base+"/labels/{name}", s.getLabel)
	mux.HandleFunc("POST "+base+"/labels", s.createLabel)
	mux.HandleFunc("GET "+issue+"/labels", s.listIssueLabels)
	mux.HandleFunc("POST "+issue+"/labels", s.addIssueLabels)
	mux.HandleFunc("DELETE "+issue+"/labels/{name}", s.removeIssueLabel)
	mux.HandleFunc("GET "+base+"/pulls/"+strconv.Itoa(pr), s.getPull)
	mux.HandleFunc("PATCH "+base+"/pulls/"+strconv.Itoa(pr), s.editPull)
	mux.HandleFunc("GET "+base+"/contents/{path...}", s.getContents)
	mux.HandleFunc("PUT "+base+"/contents/{path...}", s.putContents)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("githubtest: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
	})

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))

		key := r.Method + " " + r.URL.Path

		s.mu.Lock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: string(body)})
		readOnly := s.readOnly
		fault, faulty := s.nextFault(key)
		after := s.after[key]
		delete(s.after, key)
		s.mu.Unlock()

		defer func() {
			for _, fn := range after {
				fn()
			}
		}()

		if faulty {
			fault.write(w)

			return
		}

		if readOnly && r.Method != http.MethodGet {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"Resource not accessible by integration"}`)

			return
		}

		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	s.URL = srv.URL + "/"

	return s
}

// AddComment seeds an existing comment written by the bot and returns its ID.
func (s *Server) AddComment(body string) int64 { return s.AddCommentBy(Bot, body) }

// AddCommentBy seeds an existing comment written by login and returns its ID.
func (s *Server) AddCommentBy(login, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()

	s.nextID++

	c := comment{ID: s.nextID, Body: body}
	c.User.Login = login
	s.comments = append(s.comments, c)

	return s.nextID
}

// AddCommitPull lists a pull request for the commit sha (GET .../commits/{sha}/pulls).
func (s *Server) AddCommitPull(sha string, p CommitPull) {
	s.mu.Lock()
	defer s.mu.Unlock()

	out := pull{Number: p.Number, State: "open", MergeCommitSHA: p.MergeCommitSHA}
	out.Base.Ref, out.Base.SHA = p.BaseRef, p.BaseSHA

	if p.Merged {
		at := "2026-11-29T12:00:00Z"
		out.State, out.MergedAt = "closed", &at
	}

	s.pulls[sha] = append(s.pulls[sha], out)
}

// AddRepoLabel seeds a repository label.
func (s *Server) AddRepoLabel(name string) { s.mu.Lock(); s.repoLabel[name] = true; s.mu.Unlock() }

// AddPRLabel seeds a label on the pull request.
func (s *Server) AddPRLabel(name string) {
	s.mu.Lock()
	s.repoLabel[name] = true
	s.prLabels = append(s.prLabels, name)
	s.mu.Unlock()
}

// RemovePRLabel takes a label off the pull request, as another job or a person does.
func (s *Server) RemovePRLabel(name string) {
	s.mu.Lock()
	s.prLabels = slices.DeleteFunc(s.prLabels, func(l string) bool { return l == name })
	s.mu.Unlock()
}

// ReadOnly makes every write answer 403, as for a fork's token.
func (s *Server) ReadOnly() { s.mu.Lock(); s.readOnly = true; s.mu.Unlock() }

// PageSize sets how many comments, labels or pull requests a page holds, to exercise
// pagination.
func (s *Server) PageSize(n int) { s.mu.Lock(); s.pageSize = n; s.mu.Unlock() }

// Comments returns the bodies of all comments.
func (s *Server) Comments() []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	var out []string
	for _, c := range s.comments {
		out = append(out, c.Body)
	}

	return out
}

// PRLabels returns the labels on the pull request.
func (s *Server) PRLabels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.prLabels)
}

// Requests returns every request received.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.requests)
}

// Writes returns the requests that changed something.
func (s *Server) Writes() []Request {
	var out []Request

	for _, r := range s.Requests() {
		if r.Method != http.MethodGet {
			out = append(out, r)
		}
	}

	return out
}

func (s *Server) listCommitPulls(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	all := s.pulls[r.PathValue("sha")]
	if all == nil {
		all = []pull{}
	}

	start, end := s.page(w, r, len(all))
	writeJSON(w, http.StatusOK, all[start:end])
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	start, end := s.page(w, r, len(s.comments))
	writeJSON(w, http.StatusOK, s.comments[start:end])
}

// page is the slice of n items the request's page holds; it sets the Link header to
// the next page when there is one. The caller holds the lock.
func (s *Server) page(w http.ResponseWriter, r *http.Request, n int) (start, end int) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}

	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per < 1 || per > s.pageSize {
		per = s.pageSize
	}

	start = min((page-1)*per, n)
	end = min(start+per, n)

	if end < n {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(per))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
	}

	return start, end
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	var in comment
	if !s.decode(w, r, &in) {
		return
	}

	s.mu.Lock()
	s.nextID++
	c := comment{ID: s.nextID, Body: in.Body}
	c.User.Login = Bot
	s.comments = append(s.comments, c)
	s.mu.Unlock()

	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)

	var in comment
	if !s.decode(w, r, &in) {
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	for i := range s.comments {
		if s.comments[i].ID == id {
			if s.comments[i].User.Login != Bot {
				s.t.Errorf("githubtest: edit of comment %d written by %s, not by the token's %s", id, s.comments[i].User.Login, Bot)
			}

			s.comments[i].Body = in.Body
			writeJSON(w, http.StatusOK, s.comments[i])

			return
		}
	}

	s.t.Errorf("githubtest: edit of unknown comment %d", id)
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

type label struct {
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

func (s *Server) getLabel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ok := s.repoLabel[r.PathValue("name")]
	s.mu.Unlock()

	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})

		return
	}

	writeJSON(w, http.StatusOK, label{Name: r.PathValue("name")})
}

func (s *Server) createLabel(w http.ResponseWriter, r *http.Request) {
	var in label
	if !s.decode(w, r, &in) {
		return
	}

	if in.Name == "" || len(in.Color) != 6 {
		s.t.Errorf("githubtest: invalid label %+v", in)
	}

	s.mu.Lock()
	exists := s.repoLabel[in.Name]
	s.repoLabel[in.Name] = true
	s.mu.Unlock()

	if exists {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
			"message":           "Validation Failed",
			"errors":            []map[string]string{{"resource": "Label", "code": "already_exists", "field": "name"}},
			"documentation_url": "https://docs.github.com/rest/issues/labels#create-a-label",
		})

		return
	}

	writeJSON(w, http.StatusCreated, in)
}

func (s *Server) listIssueLabels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	start, end := s.page(w, r, len(s.prLabels))

	out := []label{}
	for _, l := range s.prLabels[start:end] {
		out = append(out, label{Name: l})
	}

	writeJSON(w, http.StatusOK, out)
}

func (s *Server) addIssueLabels(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Labels []string `json:"labels"`
	}

	// go-github sends a bare JSON array; the API accepts both shapes.
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &in.Labels) != nil && json.Unmarshal(body, &in) != nil {
		s.t.Errorf("githubtest: bad labels body %s", body)
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	for _, l := range in.Labels {
		if !s.repoLabel[l] {
			s.t.Errorf("githubtest: label %q added before it exists", l)
		}

		if !slices.Contains(s.prLabels, l) {
			s.prLabels = append(s.prLabels, l)
		}
	}

	writeJSON(w, http.StatusOK, []label{})
}

func (s *Server) removeIssueLabel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	name := r.PathValue("name")
	if !slices.Contains(s.prLabels, name) {
		writeJSON(w, http.StatusNotFound, map[string]string{
			"message":           "Label does not exist",
			"documentation_url": "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue",
		})

		return
	}

	s.prLabels = slices.DeleteFunc(s.prLabels, func(l string) bool { return l == name })

	out := []label{}
	for _, l := range s.prLabels {
		out = append(out, label{Name: l})
	}

	writeJSON(w, http.StatusOK, out)
}

func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		s.t.Errorf("githubtest: %s %s: bad body: %v", r.Method, r.URL.Path, err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})

		return false
	}

	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
