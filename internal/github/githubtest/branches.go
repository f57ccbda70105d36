package githubtest

import (
	"crypto/sha1" //nolint:gosec // git names a blob by its SHA-1; the fake answers as GitHub does
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
)

// Pull is the fake's pull request: its title and the branch it merges.
type Pull struct {
	Title string
	// HeadRef is the branch; HeadRepo the repository holding it ("": this one).
	HeadRef, HeadRepo string
}

// Commit is a commit the contents API made on a branch.
type Commit struct {
	SHA, Branch, Path, Message string
}

// SetPull describes the pull request the fake serves at GET and PATCH .../pulls/{number}.
func (s *Server) SetPull(p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()

	if p.HeadRepo == "" {
		p.HeadRepo = s.owner + "/" + s.repo
	}

	s.pull = &p
}

// PullTitle returns the pull request's title as it is now.
func (s *Server) PullTitle() string {
	s.mu.Lock()
	defer s.mu.Unlock()

	return s.pull.Title
}

// AddFile puts a file on a branch.
func (s *Server) AddFile(branch, name string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()

	if s.branches[branch] == nil {
		s.branches[branch] = map[string][]byte{}
	}

	s.branches[branch][name] = slices.Clone(data)
}

// File returns a file of a branch as it is now.
func (s *Server) File(branch, name string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.branches[branch][name])
}

// Commits returns the commits the contents API made.
func (s *Server) Commits() []Commit {
	s.mu.Lock()
	defer s.mu.Unlock()

	return slices.Clone(s.commits)
}

// blobSHA is git's name of a blob with data.
func blobSHA(data []byte) string {
	h := sha1.New() //nolint:gosec // git's object name
	_, _ = fmt.Fprintf(h, "blob %d\x00", len(data))
	_, _ = h.Write(data)

	return hex.EncodeToString(h.Sum(nil))
}

// pullJSON is the REST shape of the pull request, as much as talops reads.
func (s *Server) pullJSON() map[string]any {
	return map[string]any{
		"number": s.number, "state": "open", "title": s.pull.Title,
		"head": map[string]any{"ref": s.pull.HeadRef, "sha": "bbbb", "repo": map[string]any{"full_name": s.pull.HeadRepo}},
		"base": map[string]any{"ref": "main", "sha": "aaaa", "repo": map[string]any{"full_name": s.owner + "/" + s.repo}},
	}
}

func (s *Server) getPull(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()

	if s.pull == nil {
		s.t.Errorf("githubtest: GET of the pull request, which the test did not describe (SetPull)")
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})

		return
	}

	writeJSON(w, http.StatusOK, s.pullJSON())
}

func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	if !s.decode(w, r, &in) {
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()

	title, ok := in["title"].(string)
	if !ok || len(in) != 1 {
		s.t.Errorf("githubtest: pull request edit %v: talops only ever sets the title", in)
	}

	s.pull.Title = title
	writeJSON(w, http.StatusOK, s.pullJSON())
}

const contentsDocs = "https://docs.github.com/rest/repos/contents#create-or-update-file-contents"

func (s *Server) getContents(w http.ResponseWriter, r *http.Request) {
	name, branch := r.PathValue("path"), r.URL.Query().Get("ref")

	s.mu.Lock()
	data, ok := s.branches[branch][name]
	s.mu.Unlock()

	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{
			"message": "Not Found", "documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content", "status": "404",
		})

		return
	}

	// GitHub wraps the base64 at 60 characters, each line ending in a line break.
	enc := base64.StdEncoding.EncodeToString(data)

	var wrapped strings.Builder
	for len(enc) > 60 {
		wrapped.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}

	wrapped.WriteString(enc + "\n")

	writeJSON(w, http.StatusOK, map[string]any{
		"type": "file", "encoding": "base64", "size": len(data), "name": path.Base(name), "path": name,
		"content": wrapped.String(), "sha": blobSHA(data),
	})
}

func (s *Server) putContents(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Message string `json:"message"`
		Content string `json:"content"`
		SHA     string `json:"sha"`
		Branch  string `json:"branch"`
	}

	if !s.decode(w, r, &in) {
		return
	}

	data, err := base64.StdEncoding.DecodeString(in.Content)
	if err != nil || in.Message == "" || in.Branch == "" {
		s.t.Errorf("githubtest: PUT contents: content %q (%v), message %q, branch %q", in.Content, err, in.Message, in.Branch)
	}

	name := r.PathValue("path")

	s.mu.Lock()
	defer s.mu.Unlock()

	old, ok := s.branches[in.Branch][name]

	switch {
	case !ok:
		s.t.Errorf("githubtest: PUT contents of %s on %s, which the branch does not hold", name, in.Branch)
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": contentsDocs, "status": "404"})

		return
	case in.SHA == "":
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Invalid request.\n\n\"sha\" wasn't supplied.", "documentation_url": contentsDocs, "status": "422"})

		return
	case in.SHA != blobSHA(old):
		writeJSON(w, http.StatusConflict, map[string]string{"message": name + " does not match " + in.SHA, "documentation_url": contentsDocs, "status": "409"})

		return
	}

	s.branches[in.Branch][name] = data
	s.nextID++
	c := Commit{SHA: fmt.Sprintf("%040x", s.nextID), Branch: in.Branch, Path: name, Message: in.Message}
	s.commits = append(s.commits, c)

	writeJSON(w, http.StatusOK, map[string]any{
		"content": map[string]any{"type": "file", "name": path.Base(name), "path": name, "sha": blobSHA(data), "size": len(data)},
		"commit":  map[string]any{"sha": c.SHA, "message": c.Message},
	})
}

// NotAccessible is GitHub's 403 to a write the workflow's token has no permission for
// (contents: write to commit, pull-requests: write to edit a pull request).
func NotAccessible() Fault {
	return Fault{
		Status: http.StatusForbidden,
		Body:   `{"message":"Resource not accessible by integration","documentation_url":"` + contentsDocs + `","status":"403"}`,
	}
}
