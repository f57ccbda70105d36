package backup

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Retention says which backups of a cluster to keep once a new one is written: the Keep
// newest and every one younger than KeepWithin; a backup either rule keeps stays. The zero
// Retention keeps everything.
type Retention struct {
	Keep       int
	KeepWithin time.Duration
}

// Any says whether the retention deletes anything at all.
func (r Retention) Any() bool { return r.Keep > 0 || r.KeepWithin > 0 }

// Expired are the backups of cluster among names (backup names, Names) that r lets go at
// now, oldest first. Another cluster's backup is never one, nor the newest of cluster's.
func (r Retention) Expired(names []string, cluster string, now time.Time) []string {
	if !r.Any() {
		return nil
	}

	type dated struct {
		name string
		t    time.Time
	}

	var own []dated

	for _, n := range names {
		if c, t, ok := ParseName(n); ok && c == cluster {
			own = append(own, dated{n, t})
		}
	}

	// Newest first, so the index is how many newer backups there are.
	slices.SortFunc(own, func(a, b dated) int {
		if c := b.t.Compare(a.t); c != 0 {
			return c
		}

		return strings.Compare(b.name, a.name)
	})

	var out []string

	for i, b := range own {
		keptByCount := r.Keep > 0 && i < r.Keep
		keptByAge := r.KeepWithin > 0 && now.Sub(b.t) < r.KeepWithin

		if i == 0 || keptByCount || keptByAge {
			continue
		}

		out = append(out, b.name)
	}

	slices.Reverse(out)

	return out
}

// maxKeepWithin bounds keepWithin: ten years, far from a duration's overflow.
const maxKeepWithin = 10 * 365 * 24 * time.Hour

// ParseAge reads an age as keepWithin names it: a whole number of days (30d), weeks (4w)
// or hours (12h), or a Go duration (36h30m); at least an hour.
func ParseAge(s string) (time.Duration, error) {
	bad := fmt.Errorf("%q is not an age: use days (30d), weeks (4w) or hours (12h)", s)

	var d time.Duration

	switch unit := strings.TrimLeft(s, "0123456789"); unit {
	case "d", "w":
		n, err := strconv.Atoi(strings.TrimSuffix(s, unit))
		if err != nil || n > int(maxKeepWithin/(24*time.Hour)) {
			return 0, bad
		}

		d = time.Duration(n) * 24 * time.Hour
		if unit == "w" {
			d *= 7
		}
	default:
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad
		}
	}

	switch {
	case d < time.Hour:
		return 0, fmt.Errorf("%q is under an hour: a backup younger than that is the newest anyway", s)
	case d > maxKeepWithin:
		return 0, fmt.Errorf("%q is over ten years", s)
	}

	return d, nil
}
