package action

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/talops/talops/internal/github"
)

// One job per cluster plans the same pull request and each puts labels on it, so the
// labels are those of every cluster's plan: each plan comment carries its cluster's labels
// in a hidden line, and the job that posts last reads the others' from there.

const (
	labelsMarkerPrefix = "<!-- talops:plan-labels"
	planMarkerPrefix   = "<!-- talops:plan cluster="
	noChanges          = "talos:no-changes"
)

// labelsMarker is the hidden line that carries a cluster's plan labels.
func labelsMarker(labels []string) string {
	if len(labels) == 0 {
		return labelsMarkerPrefix + " -->"
	}

	return labelsMarkerPrefix + " " + strings.Join(labels, ",") + " -->"
}

var labelsLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^<!-- talops:plan-labels(?: ([a-z:,-]+))? -->\r?$`)
})

// parseLabelsMarker is the plan labels a comment body carries; only labels talops
// manages count. ok is false for a comment without the line (posted by an older talops).
func parseLabelsMarker(body string) (labels []string, ok bool) {
	m := labelsLine().FindStringSubmatch(body)
	if m == nil {
		return nil, false
	}

	for _, l := range strings.Split(m[1], ",") {
		if slices.ContainsFunc(planLabels, func(p github.Label) bool { return p.Name == l }) {
			labels = append(labels, l)
		}
	}

	return labels, true
}

// prLabels are the labels of the pull request: ours together with those of the other
// clusters' plan comments written by author (anybody else's are not trusted). Upgrades
// and reboots add up; "no changes" holds only when every cluster's plan says so.
func prLabels(comments []github.Comment, author, ourMarker string, ours []string) []string {
	sets := [][]string{ours}

	for _, c := range comments {
		first, _, _ := strings.Cut(c.Body, "\n")
		first = strings.TrimSuffix(first, "\r")

		if c.Author != author || first == ourMarker || !strings.HasPrefix(first, planMarkerPrefix) || !strings.HasSuffix(first, " -->") {
			continue
		}

		if labels, ok := parseLabelsMarker(c.Body); ok {
			sets = append(sets, labels)
		}
	}

	var out []string

	for _, l := range planLabels {
		every, some := true, false

		for _, set := range sets {
			has := slices.Contains(set, l.Name)
			every, some = every && has, some || has
		}

		if (l.Name == noChanges && every) || (l.Name != noChanges && some) {
			out = append(out, l.Name)
		}
	}

	return out
}
