package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cluster"
)

func TestLoad_MaintenanceProblemsArePlacedAtTheirLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		section string
		want    string
	}{
		{"unknown time zone", "maintenance:\n  timeZone: Mars/Olympus\n  windows: [{start: \"02:00\", duration: 4h}]\n", `lab/talops.yaml:20: maintenance.timeZone: unknown time zone "Mars/Olympus"`},
		{"no windows", "maintenance:\n  timeZone: UTC\n  windows: []\n", "lab/talops.yaml:21: maintenance.windows: is empty"},
		{"bad day", "maintenance:\n  windows:\n    - days: [saturday]\n      start: \"02:00\"\n      duration: 4h\n", `lab/talops.yaml:21: maintenance.windows[0].days: "saturday" is not a day`},
		{"bad start", "maintenance:\n  windows:\n    - start: \"2am\"\n      duration: 4h\n", `lab/talops.yaml:21: maintenance.windows[0].start: "2am" is not a time of day`},
		{"missing duration", "maintenance:\n  windows:\n    - start: \"02:00\"\n", `lab/talops.yaml:21: maintenance.windows[0].duration: "" is not a window length`},
		{"typo in a window", "maintenance:\n  windows:\n    - start: \"02:00\"\n      duraton: 4h\n", "lab/talops.yaml:22: maintenance.windows[0].duraton: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cluster.Load("lab", files(minimal+tc.section))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%v\ndoes not contain\n%s", err, tc.want)
			}
		})
	}
}

func TestSchedule_ReadsTheWindowsInTheirZone(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal+"maintenance:\n  timeZone: Europe/Berlin\n  windows:\n    - days: [sat-sun]\n      start: 02:00\n      duration: 4h\n"))
	if err != nil {
		t.Fatal(err)
	}

	s, err := c.Schedule()
	if err != nil {
		t.Fatal(err)
	}

	// 01:30 UTC on a Saturday in December is 02:30 in Berlin: inside.
	if st := s.At(time.Date(2026, 12, 5, 1, 30, 0, 0, time.UTC)); !st.Open {
		t.Errorf("02:30 Berlin on a Saturday is outside: %+v", st)
	}

	// 00:30 UTC is 01:30 in Berlin: before the window.
	if st := s.At(time.Date(2026, 12, 5, 0, 30, 0, 0, time.UTC)); st.Open {
		t.Errorf("01:30 Berlin on a Saturday is inside: %+v", st)
	}
}

func TestSchedule_NoSectionIsAlwaysOpen(t *testing.T) {
	c, err := cluster.Load("lab", files(minimal))
	if err != nil {
		t.Fatal(err)
	}

	s, err := c.Schedule()
	if err != nil || !s.At(time.Unix(0, 0)).Open {
		t.Errorf("no maintenance section: %+v, %v", s, err)
	}
}
