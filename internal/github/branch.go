package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v60/github"
)

// PullInfo is a pull request as GET /repos/{owner}/{repo}/pulls/{number} shows it, as much
// as talops reads.
type PullInfo struct {
	Title string
	// HeadRef is the branch the pull request merges; HeadRepo the repository that holds it
	// ("owner/repo": another one for a fork's pull request).
	HeadRef, HeadRepo string
}

// BranchFile is a file of a branch as the contents API gives it.
type BranchFile struct {
	Data []byte
	// SHA is the file's blob: an update names it, so that it never overwrites a change
	// made since it was read.
	SHA string
}

// Pull reads a pull request.
func (c *Client) Pull(ctx context.Context, pr PR) (PullInfo, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, pr.Owner, pr.Repo, pr.Number)
	if err != nil {
		return PullInfo{}, classify("read "+pr.String(), err)
	}

	return PullInfo{Title: p.GetTitle(), HeadRef: p.GetHead().GetRef(), HeadRepo: p.GetHead().GetRepo().GetFullName()}, nil
}

// EditTitle sets a pull request's title.
func (c *Client) EditTitle(ctx context.Context, pr PR, title string) error {
	_, _, err := c.gh.PullRequests.Edit(ctx, pr.Owner, pr.Repo, pr.Number, &gh.PullRequest{Title: &title})

	return classify("edit the title of "+pr.String(), err)
}

// File reads a file of owner/repo at a branch (GET /repos/{owner}/{repo}/contents/{path}).
func (c *Client) File(ctx context.Context, owner, repo, path, branch string) (BranchFile, error) {
	f, _, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: branch})
	if err != nil {
		return BranchFile{}, classify(fmt.Sprintf("read %s on %s", path, branch), err)
	}

	if f == nil {
		return BranchFile{}, fmt.Errorf("read %s on %s: it is a directory", path, branch)
	}

	text, err := f.GetContent()
	if err != nil {
		return BranchFile{}, fmt.Errorf("read %s on %s: %w", path, branch, err)
	}

	return BranchFile{Data: []byte(text), SHA: f.GetSHA()}, nil
}

// UpdateFile commits new contents of a file to a branch (PUT
// /repos/{owner}/{repo}/contents/{path}), over the blob read as old, and returns the
// commit it made.
func (c *Client) UpdateFile(ctx context.Context, owner, repo, path, branch, message string, data []byte, old string) (string, error) {
	res, _, err := c.gh.Repositories.UpdateFile(ctx, owner, repo, path, &gh.RepositoryContentFileOptions{
		Message: &message, Content: data, SHA: &old, Branch: &branch,
	})
	if err != nil {
		return "", classify(fmt.Sprintf("commit %s to %s", path, branch), err)
	}

	return res.GetSHA(), nil
}
