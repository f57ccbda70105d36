package github_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/talops/talops/internal/github"
	"github.com/talops/talops/internal/github/githubtest"
)

var pr = github.PR{Owner: "lab", Repo: "infra", Number: 7}

func client(t *testing.T, s *githubtest.Server) *github.Client {
	t.Helper()

	c, err := github.New(http.DefaultClient, s.URL, "token")
	if err != nil {
		t.Fatal(err)
	}

	return c
}

const marker = "<!-- talops:plan cluster=homelab -->"

func TestSticky_CreatesThenEditsThenLeavesAlone(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddComment("an unrelated comment")
	c := client(t, s)

	body := marker + "\nPlan: 5 nodes — no changes\n"

	for i, want := range []github.StickyResult{github.Created, github.Unchanged} {
		got, err := github.Sticky(context.Background(), c, pr, githubtest.Bot, marker, body)
		if err != nil || got != want {
			t.Fatalf("call %d: %v %v, want %v", i, got, err, want)
		}
	}

	body2 := marker + "\nPlan: 5 nodes — 1 update, 4 unchanged\n"
	if got, err := github.Sticky(context.Background(), c, pr, githubtest.Bot, marker, body2); err != nil || got != github.Updated {
		t.Fatalf("changed body: %v %v", got, err)
	}

	if got := s.Comments(); len(got) != 2 || got[1] != body2 {
		t.Errorf("comments = %q", got)
	}

	writes := s.Writes()
	if len(writes) != 2 || writes[0].Method != http.MethodPost || writes[1].Method != http.MethodPatch || !strings.Contains(writes[1].Body, "1 update") {
		t.Errorf("writes = %+v", writes)
	}
}

func TestSticky_FindsItsCommentOnALaterPage(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.PageSize(2)

	for range 5 {
		s.AddComment("chatter")
	}

	id := s.AddComment(marker + "\nold plan\n")
	_ = id

	got, err := github.Sticky(context.Background(), client(t, s), pr, githubtest.Bot, marker, marker+"\nnew plan\n")
	if err != nil || got != github.Updated {
		t.Fatalf("%v %v", got, err)
	}

	if n := len(s.Comments()); n != 6 {
		t.Errorf("%d comments: a second sticky comment was created", n)
	}

	pages := 0
	for _, r := range s.Requests() {
		if r.Method == http.MethodGet {
			pages++
		}
	}

	if pages != 3 {
		t.Errorf("listed %d pages, want 3", pages)
	}
}

func TestSticky_ReadOnlyTokenIsErrReadOnly(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.ReadOnly()

	_, err := github.Sticky(context.Background(), client(t, s), pr, githubtest.Bot, marker, marker+"\nplan\n")
	if !errors.Is(err, github.ErrReadOnly) {
		t.Fatalf("err = %v, want ErrReadOnly", err)
	}
}

func TestSyncLabels_CreatesMissingAddsWantedRemovesStale(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddRepoLabel("talos:reboot")
	s.AddPRLabel("talos:no-changes")
	s.AddPRLabel("bug")

	managed := []github.Label{
		{Name: "talos:upgrade", Color: "d93f0b", Description: "upgrades Talos on nodes"},
		{Name: "talos:reboot", Color: "fbca04", Description: "reboots nodes"},
		{Name: "talos:no-changes", Color: "0e8a16", Description: "changes nothing on nodes"},
	}

	if err := github.SyncLabels(context.Background(), client(t, s), pr, managed, []string{"talos:upgrade", "talos:reboot"}); err != nil {
		t.Fatal(err)
	}

	if got := strings.Join(s.PRLabels(), ","); got != "bug,talos:upgrade,talos:reboot" {
		t.Errorf("labels = %s", got)
	}

	var created []string
	for _, r := range s.Writes() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/labels") && !strings.Contains(r.Path, "/issues/") {
			created = append(created, r.Body)
		}
	}

	if len(created) != 1 || !strings.Contains(created[0], `"name":"talos:upgrade"`) || !strings.Contains(created[0], `"color":"d93f0b"`) {
		t.Errorf("label creations = %q", created)
	}
}

func TestSticky_LeavesACommentThatQuotesTheMarkerAlone(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddComment("> " + marker + "\n> why does this plan reboot k8s-node2?")

	got, err := github.Sticky(context.Background(), client(t, s), pr, githubtest.Bot, marker, marker+"\nplan\n")
	if err != nil || got != github.Created {
		t.Fatalf("%v %v, want a new comment", got, err)
	}

	if c := s.Comments(); !strings.HasPrefix(c[0], "> ") || len(c) != 2 {
		t.Errorf("comments = %q", c)
	}
}

func TestCommitPulls_FollowsPaginationAndReadsMergedAndBase(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.PageSize(1)
	s.AddCommitPull("cafe", githubtest.CommitPull{Number: 3, BaseRef: "main", BaseSHA: "0001"})
	s.AddCommitPull("cafe", githubtest.CommitPull{Number: 7, Merged: true, BaseRef: "main", BaseSHA: "aaaa", MergeCommitSHA: "cafe"})

	got, err := client(t, s).CommitPulls(context.Background(), "lab", "infra", "cafe")
	if err != nil {
		t.Fatal(err)
	}

	want := []github.Pull{
		{Number: 3, BaseRef: "main", BaseSHA: "0001"},
		{Number: 7, Merged: true, BaseRef: "main", BaseSHA: "aaaa", MergeCommitSHA: "cafe"},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("pulls = %+v, want %+v", got, want)
	}
}

func TestSticky_NeverEditsOrTrustsSomebodyElsesMarkerComment(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddCommentBy("mallory", marker+"\nPlan: 5 nodes — no changes (forged)\n")

	got, err := github.Sticky(context.Background(), client(t, s), pr, githubtest.Bot, marker, marker+"\nplan\n")
	if err != nil || got != github.Created {
		t.Fatalf("%v %v, want a comment of its own", got, err)
	}

	if c := s.Comments(); len(c) != 2 || !strings.Contains(c[0], "forged") {
		t.Errorf("comments = %q", c)
	}
}

func TestOurs_TheWholeFirstLineIsTheMarker(t *testing.T) {
	const lab = "<!-- talops:plan cluster=lab -->"

	for body, want := range map[string]bool{
		lab + "\nplan\n":                       true,
		lab + "\r\nplan edited on the web\r\n": true,
		lab:                                    true,
		"<!-- talops:plan cluster=lab --> x -->\nplan": false,
		lab + " trailing\nplan":                        false,
		"quoting it:\n" + lab + "\n":                   false,
	} {
		if got := github.Ours(github.Comment{Body: body, Author: githubtest.Bot}, githubtest.Bot, lab); got != want {
			t.Errorf("Ours(%q) = %v, want %v", body, got, want)
		}
	}

	if github.Ours(github.Comment{Body: lab + "\nplan", Author: "someone"}, githubtest.Bot, lab) {
		t.Error("a comment by someone else is ours")
	}
}

func TestSticky_DoesNotEditTheCommentOfAClusterWhoseNameExtendsOurs(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	const lab = "<!-- talops:plan cluster=lab -->"

	s.AddComment("<!-- talops:plan cluster=lab --> x -->\nother cluster's plan\n")

	got, err := github.Sticky(context.Background(), client(t, s), pr, githubtest.Bot, lab, lab+"\nplan\n")
	if err != nil || got != github.Created {
		t.Fatalf("%v %v, want a new comment", got, err)
	}
}

var managedLabels = []github.Label{
	{Name: "talos:upgrade", Color: "d93f0b", Description: "upgrades Talos on nodes"},
	{Name: "talos:reboot", Color: "fbca04", Description: "reboots nodes"},
	{Name: "talos:no-changes", Color: "0e8a16", Description: "changes nothing on nodes"},
}

func TestSyncLabels_LabelAnotherJobCreatedMeanwhileIsAdded(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	// The other cluster's job creates the label between this job's look-up and creation:
	// GitHub answers the creation 422 already_exists.
	s.After(http.MethodGet, "/repos/lab/infra/labels/talos:upgrade", func() { s.AddRepoLabel("talos:upgrade") })

	if err := github.SyncLabels(context.Background(), client(t, s), pr, managedLabels, []string{"talos:upgrade"}); err != nil {
		t.Fatal(err)
	}

	if got := strings.Join(s.PRLabels(), ","); got != "talos:upgrade" {
		t.Errorf("labels = %s", got)
	}
}

func TestSyncLabels_LabelAnotherJobRemovedMeanwhileIsNoError(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.AddPRLabel("talos:reboot")
	s.After(http.MethodGet, "/repos/lab/infra/issues/7/labels", func() { s.RemovePRLabel("talos:reboot") })

	if err := github.SyncLabels(context.Background(), client(t, s), pr, managedLabels, []string{"talos:no-changes"}); err != nil {
		t.Fatal(err)
	}

	if got := strings.Join(s.PRLabels(), ","); got != "talos:no-changes" {
		t.Errorf("labels = %s", got)
	}
}

func TestSyncLabels_ReadsThePRLabelsOfEveryPage(t *testing.T) {
	s := githubtest.New(t, "lab", "infra", 7)
	s.PageSize(1)
	s.AddPRLabel("bug")
	s.AddPRLabel("docs")
	s.AddPRLabel("talos:no-changes")

	if err := github.SyncLabels(context.Background(), client(t, s), pr, managedLabels, nil); err != nil {
		t.Fatal(err)
	}

	if got := strings.Join(s.PRLabels(), ","); got != "bug,docs" {
		t.Errorf("labels = %s, want the stale label on page 3 removed", got)
	}
}
