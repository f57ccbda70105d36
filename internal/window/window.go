// Package window decides whether a moment falls inside one of a cluster's maintenance
// windows, and when the next one opens. It is pure: the clock and the time zone are given.
package window

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxLength is the longest a window may last: a week, so that looking back seven days
// finds every window still open.
const MaxLength = 7 * 24 * time.Hour

// Window is a span that opens at Start (wall-clock time of day in the schedule's zone) on
// each of Days and lasts Length; it may run past midnight.
type Window struct {
	// Days the window opens on; empty: every day.
	Days []time.Weekday
	// Hour and Minute the window opens at, on the zone's wall clock.
	Hour, Minute int
	Length       time.Duration
}

// Schedule is a cluster's windows, in one time zone.
type Schedule struct {
	Location *time.Location
	Windows  []Window
}

// State is where a moment stands: inside a window (Open, with the time it closes) or
// outside every window (with the time the next one opens; zero when none ever does).
type State struct {
	Open bool
	// Closes is when the window open now ends (the latest end, where windows overlap).
	Closes time.Time
	// Opens is when the next window opens.
	Opens time.Time
}

// At says where now stands in the schedule. An empty schedule is always open.
func (s Schedule) At(now time.Time) State {
	if len(s.Windows) == 0 {
		return State{Open: true}
	}

	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}

	local := now.In(loc)

	var st State

	// Windows that opened up to a week ago may still be open; the next one opens within
	// a week of today (every window opens at least weekly).
	for offset := -7; offset <= 7; offset++ {
		day := time.Date(local.Year(), local.Month(), local.Day()+offset, 0, 0, 0, 0, loc)

		for _, w := range s.Windows {
			if !w.on(day.Weekday()) {
				continue
			}

			start := time.Date(day.Year(), day.Month(), day.Day(), w.Hour, w.Minute, 0, 0, loc)
			end := start.Add(w.Length)

			switch {
			case !start.After(now) && now.Before(end):
				st.Open = true
				if end.After(st.Closes) {
					st.Closes = end
				}
			case start.After(now):
				if st.Opens.IsZero() || start.Before(st.Opens) {
					st.Opens = start
				}
			}
		}
	}

	if st.Open {
		st.Opens = time.Time{}
	}

	return st
}

func (w Window) on(d time.Weekday) bool {
	if len(w.Days) == 0 {
		return true
	}

	for _, x := range w.Days {
		if x == d {
			return true
		}
	}

	return false
}

var dayNames = map[string]time.Weekday{
	"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
	"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
}

// ParseDays reads day names (mon … sun, or a range such as mon-fri, which may wrap:
// fri-mon), each at most once.
func ParseDays(names []string) ([]time.Weekday, error) {
	var (
		out  []time.Weekday
		seen [7]bool
	)

	for _, name := range names {
		from, to, isRange := strings.Cut(strings.ToLower(strings.TrimSpace(name)), "-")

		first, ok := dayNames[from]
		last := first

		if ok && isRange {
			last, ok = dayNames[to]
		}

		if !ok {
			return nil, fmt.Errorf("%q is not a day: use mon, tue, wed, thu, fri, sat, sun or a range such as mon-fri", name)
		}

		for d := first; ; d = (d + 1) % 7 {
			if seen[d] {
				return nil, fmt.Errorf("%s is named twice", strings.ToLower(d.String()[:3]))
			}

			seen[d] = true
			out = append(out, d)

			if d == last {
				break
			}
		}
	}

	return out, nil
}

// ParseStart reads a time of day as HH:MM on a 24-hour clock.
func ParseStart(s string) (hour, minute int, err error) {
	h, m, ok := strings.Cut(s, ":")
	if ok && len(h) == 2 && len(m) == 2 {
		hour, errH := strconv.Atoi(h)
		minute, errM := strconv.Atoi(m)

		if errH == nil && errM == nil && hour >= 0 && hour < 24 && minute >= 0 && minute < 60 {
			return hour, minute, nil
		}
	}

	return 0, 0, fmt.Errorf("%q is not a time of day: use HH:MM on a 24-hour clock, such as 02:30", s)
}

// ParseLength reads a window's length as a Go duration (4h, 90m, 1h30m), above zero and
// at most a week.
func ParseLength(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > MaxLength {
		return 0, fmt.Errorf("%q is not a window length: use a duration above zero and at most 168h, such as 4h or 90m", s)
	}

	if d%time.Minute != 0 {
		return 0, fmt.Errorf("%q is not a window length: use whole minutes", s)
	}

	return d, nil
}

// Describe says when a moment outside every window may apply, in the schedule's zone:
// "the next window opens Sat 2026-12-05 02:00 CET (in 2d 3h)".
func Describe(st State, now time.Time) string {
	if st.Open {
		return "inside a maintenance window until " + st.Closes.Format("Mon 2006-01-02 15:04 MST")
	}

	if st.Opens.IsZero() {
		return "no maintenance window ever opens"
	}

	return fmt.Sprintf("the next maintenance window opens %s (in %s)", st.Opens.Format("Mon 2006-01-02 15:04 MST"), roughly(st.Opens.Sub(now)))
}

// roughly is a duration in days, hours and minutes, the seconds dropped.
func roughly(d time.Duration) string {
	d = d.Round(time.Minute)
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	hours := int(d / time.Hour)
	minutes := int((d - time.Duration(hours)*time.Hour) / time.Minute)

	var parts []string
	if days > 0 {
		parts = append(parts, strconv.Itoa(days)+"d")
	}

	if hours > 0 {
		parts = append(parts, strconv.Itoa(hours)+"h")
	}

	if minutes > 0 || len(parts) == 0 {
		parts = append(parts, strconv.Itoa(minutes)+"m")
	}

	return strings.Join(parts, " ")
}
