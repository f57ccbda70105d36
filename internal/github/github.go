// Package github posts talops' results on pull requests: one sticky comment per
// cluster, found by a hidden marker and edited only when its body changed, and labels.
// Every GitHub call goes through the small API interface.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/talops/talops/internal/httpcap"
)

// PR names a pull request.
type PR struct {
	Owner  string
	Repo   string
	Number int
}

func (p PR) String() string { return fmt.Sprintf("%s/%s#%d", p.Owner, p.Repo, p.Number) }

// Comment is an issue comment.
type Comment struct {
	ID   int64
	Body string
	// Author is the login of the comment's author.
	Author string
}

// DefaultAuthor is who writes comments with the workflow's own token.
const DefaultAuthor = "github-actions[bot]"

// Ours reports whether c is talops' comment with marker: its whole first line is the
// marker (a comment that merely quotes it does not, nor one whose marker only starts
// with it, as cluster lab's does with cluster "lab --> x"'s) and it is written by
// author, so that nobody else's comment is edited or trusted.
func Ours(c Comment, author, marker string) bool {
	return firstLine(c.Body) == marker && c.Author == author
}

// firstLine is body up to its first line break; GitHub may store an edited body with CRLF.
func firstLine(body string) string {
	line, _, _ := strings.Cut(body, "\n")

	return strings.TrimSuffix(line, "\r")
}

// Pull is a pull request as a commit's pull request list shows it.
type Pull struct {
	Number int
	// Merged is true once the pull request was merged.
	Merged bool
	// BaseRef is the branch it targets; BaseSHA the base commit the API gives.
	BaseRef, BaseSHA string
	// MergeCommitSHA is the commit the merge made (the head of main after a merge).
	MergeCommitSHA string
}

// API is every GitHub call talops makes.
type API interface {
	// CommitPulls lists the pull requests associated with a commit of owner/repo.
	CommitPulls(ctx context.Context, owner, repo, sha string) ([]Pull, error)
	ListComments(ctx context.Context, pr PR) ([]Comment, error)
	CreateComment(ctx context.Context, pr PR, body string) error
	EditComment(ctx context.Context, pr PR, id int64, body string) error
	LabelExists(ctx context.Context, pr PR, name string) (bool, error)
	CreateLabel(ctx context.Context, pr PR, name, color, description string) error
	IssueLabels(ctx context.Context, pr PR) ([]string, error)
	AddLabels(ctx context.Context, pr PR, names []string) error
	RemoveLabel(ctx context.Context, pr PR, name string) error
	Pull(ctx context.Context, pr PR) (PullInfo, error)
	EditTitle(ctx context.Context, pr PR, title string) error
	File(ctx context.Context, owner, repo, path, branch string) (BranchFile, error)
	UpdateFile(ctx context.Context, owner, repo, path, branch, message string, data []byte, old string) (string, error)
}

// ErrReadOnly is returned when GitHub refuses a write with 403: a fork's read-only token,
// or a conversation locked on the pull request.
var ErrReadOnly = errors.New("the GitHub token cannot write to this pull request (a fork's read-only token, or a locked conversation?)")

// ErrUnauthorized is returned when GitHub answers 401: the token is missing, expired or
// revoked. Unlike ErrReadOnly it is no expected state of a fork's pull request.
var ErrUnauthorized = errors.New("GitHub refused the token (401: missing, expired or revoked?)")

// Client is the API over go-github.
type Client struct {
	gh *gh.Client
}

// New returns a client for the REST API at apiURL (GITHUB_API_URL) with a token. Each
// call is retried with a bounded backoff when GitHub answers that it is rate limited or
// briefly unavailable; httpClient's timeout bounds one attempt.
func New(httpClient *http.Client, apiURL, token string, opts ...Option) (*Client, error) {
	// go-github decodes a whole answer into memory: one past maxBodyBytes fails.
	c := gh.NewClient(&http.Client{Transport: httpcap.Transport{Next: newRetrier(httpClient, opts), Limit: maxBodyBytes}})
	if token != "" {
		c = c.WithAuthToken(token)
	}

	if apiURL != "" {
		u, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("GitHub API URL %q: %w", apiURL, err)
		}

		c.BaseURL = u
	}

	return &Client{gh: c}, nil
}

const perPage = 100

// maxBodyBytes bounds any answer: a page of 100 comments of GitHub's largest body (65,536
// characters, 6.5 MB) fits with room for escaping and the comments' metadata.
const maxBodyBytes = 32 << 20

// ListComments lists every comment of the pull request, following pagination.
func (c *Client) ListComments(ctx context.Context, pr PR) ([]Comment, error) {
	var out []Comment

	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: perPage}}

	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, pr.Owner, pr.Repo, pr.Number, opts)
		if err != nil {
			return nil, classify("list comments of "+pr.String(), err)
		}

		for _, cm := range page {
			out = append(out, Comment{ID: cm.GetID(), Body: cm.GetBody(), Author: cm.GetUser().GetLogin()})
		}

		if resp.NextPage == 0 {
			return out, nil
		}

		opts.Page = resp.NextPage
	}
}

// CommitPulls lists the pull requests associated with a commit, following pagination
// (GET /repos/{owner}/{repo}/commits/{sha}/pulls).
func (c *Client) CommitPulls(ctx context.Context, owner, repo, sha string) ([]Pull, error) {
	var out []Pull

	opts := &gh.ListOptions{PerPage: perPage}

	for {
		page, resp, err := c.gh.PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, opts)
		if err != nil {
			return nil, classify(fmt.Sprintf("list the pull requests of %s/%s@%s", owner, repo, sha), err)
		}

		for _, p := range page {
			out = append(out, Pull{
				Number: p.GetNumber(), Merged: p.MergedAt != nil,
				BaseRef: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(),
				MergeCommitSHA: p.GetMergeCommitSHA(),
			})
		}

		if resp.NextPage == 0 {
			return out, nil
		}

		opts.Page = resp.NextPage
	}
}

// CreateComment posts a comment.
func (c *Client) CreateComment(ctx context.Context, pr PR, body string) error {
	_, _, err := c.gh.Issues.CreateComment(ctx, pr.Owner, pr.Repo, pr.Number, &gh.IssueComment{Body: &body})

	return classify("comment on "+pr.String(), err)
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, pr PR, id int64, body string) error {
	_, _, err := c.gh.Issues.EditComment(ctx, pr.Owner, pr.Repo, id, &gh.IssueComment{Body: &body})

	return classify(fmt.Sprintf("edit comment %d on %s", id, pr), err)
}

// LabelExists reports whether the repository has a label.
func (c *Client) LabelExists(ctx context.Context, pr PR, name string) (bool, error) {
	_, resp, err := c.gh.Issues.GetLabel(ctx, pr.Owner, pr.Repo, name)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false, nil
	}

	if err != nil {
		return false, classify("get label "+name, err)
	}

	return true, nil
}

// CreateLabel creates a repository label. A label that exists already (another job
// created it between our look-up and now: GitHub answers 422 already_exists) is what
// was wanted.
func (c *Client) CreateLabel(ctx context.Context, pr PR, name, color, description string) error {
	_, _, err := c.gh.Issues.CreateLabel(ctx, pr.Owner, pr.Repo, &gh.Label{Name: &name, Color: &color, Description: &description})
	if alreadyExists(err) {
		return nil
	}

	return classify("create label "+name, err)
}

// alreadyExists reports whether err is GitHub's 422 with the already_exists code.
func alreadyExists(err error) bool {
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity {
		return false
	}

	return slices.ContainsFunc(er.Errors, func(e gh.Error) bool { return e.Code == "already_exists" })
}

// IssueLabels lists the labels on the pull request.
func (c *Client) IssueLabels(ctx context.Context, pr PR) ([]string, error) {
	var out []string

	opts := &gh.ListOptions{PerPage: perPage}

	for {
		page, resp, err := c.gh.Issues.ListLabelsByIssue(ctx, pr.Owner, pr.Repo, pr.Number, opts)
		if err != nil {
			return nil, classify("list labels of "+pr.String(), err)
		}

		for _, l := range page {
			out = append(out, l.GetName())
		}

		if resp.NextPage == 0 {
			return out, nil
		}

		opts.Page = resp.NextPage
	}
}

// AddLabels adds labels to the pull request.
func (c *Client) AddLabels(ctx context.Context, pr PR, names []string) error {
	_, _, err := c.gh.Issues.AddLabelsToIssue(ctx, pr.Owner, pr.Repo, pr.Number, names)

	return classify("label "+pr.String(), err)
}

// RemoveLabel removes a label from the pull request. A label that is gone already
// (another job removed it: GitHub answers 404) is what was wanted.
func (c *Client) RemoveLabel(ctx context.Context, pr PR, name string) error {
	resp, err := c.gh.Issues.RemoveLabelForIssue(ctx, pr.Owner, pr.Repo, pr.Number, name)
	if err != nil && resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil
	}

	return classify("unlabel "+pr.String(), err)
}

// classify turns GitHub's refusals into ErrUnauthorized (401) and ErrReadOnly (403),
// decided by status code and type, and says when a rate limit outlasted the retries.
func classify(what string, err error) error {
	if err == nil {
		return nil
	}

	var (
		rl *gh.RateLimitError
		ar *gh.AbuseRateLimitError
	)

	if errors.As(err, &rl) || errors.As(err, &ar) {
		return fmt.Errorf("%s: GitHub's rate limit held through every retry: %w", what, err)
	}

	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		switch er.Response.StatusCode {
		case http.StatusUnauthorized:
			return fmt.Errorf("%s: %w", what, ErrUnauthorized)
		case http.StatusForbidden:
			return fmt.Errorf("%s: %w: GitHub said %q", what, ErrReadOnly, er.Message)
		default:
			return fmt.Errorf("%s: GitHub answered %d: %s", what, er.Response.StatusCode, er.Message)
		}
	}

	return fmt.Errorf("%s: %w", what, err)
}

// StickyResult says what Sticky did.
type StickyResult string

// Sticky outcomes.
const (
	Created   StickyResult = "created"
	Updated   StickyResult = "updated"
	Unchanged StickyResult = "unchanged"
)

// Sticky makes sure the pull request has exactly one comment of author opening with marker,
// with body: it creates it, edits it when the body changed, and leaves it alone otherwise.
func Sticky(ctx context.Context, api API, pr PR, author, marker, body string) (StickyResult, error) {
	if firstLine(body) != marker {
		return "", errors.New("comment body does not start with its marker line")
	}

	comments, err := api.ListComments(ctx, pr)
	if err != nil {
		return "", err
	}

	for _, c := range comments {
		if !Ours(c, author, marker) {
			continue
		}

		if c.Body == body {
			return Unchanged, nil
		}

		if err := api.EditComment(ctx, pr, c.ID, body); err != nil {
			return "", err
		}

		return Updated, nil
	}

	if err := api.CreateComment(ctx, pr, body); err != nil {
		return "", err
	}

	return Created, nil
}

// Label is a label talops manages.
type Label struct {
	Name, Color, Description string
}

// SyncLabels puts exactly the wanted labels of the managed set on the pull request,
// creating missing repository labels first.
func SyncLabels(ctx context.Context, api API, pr PR, managed []Label, want []string) error {
	current, err := api.IssueLabels(ctx, pr)
	if err != nil {
		return err
	}

	var add []string

	for _, l := range managed {
		wanted := slices.Contains(want, l.Name)
		has := slices.Contains(current, l.Name)

		switch {
		case wanted && !has:
			exists, err := api.LabelExists(ctx, pr, l.Name)
			if err != nil {
				return err
			}

			if !exists {
				if err := api.CreateLabel(ctx, pr, l.Name, l.Color, l.Description); err != nil {
					return err
				}
			}

			add = append(add, l.Name)
		case !wanted && has:
			if err := api.RemoveLabel(ctx, pr, l.Name); err != nil {
				return err
			}
		}
	}

	if len(add) > 0 {
		return api.AddLabels(ctx, pr, add)
	}

	return nil
}
