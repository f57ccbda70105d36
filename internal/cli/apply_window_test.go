package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/cli"
)

// saturdayNights is a window from 02:00 to 06:00 Berlin time on Saturdays.
const saturdayNights = "maintenance:\n  timeZone: Europe/Berlin\n  windows:\n    - days: [sat]\n      start: \"02:00\"\n      duration: 4h\n"

// withWindow gives the lab saturdayNights and sets the clock to now.
func withWindow(l *applyLab, now time.Time) {
	l.files["talops.yaml"] = append(l.files["talops.yaml"], []byte(saturdayNights)...)
	l.h.deps.Now = func() time.Time { return now }
}

var (
	// wednesdayNoon is outside the window: the next one opens Saturday 02:00 CET.
	wednesdayNoon = time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	// saturdayThree is 03:00 in Berlin on a Saturday: inside.
	saturdayThree = time.Date(2026, 12, 5, 2, 0, 0, 0, time.UTC)
)

func TestApply_OutsideEveryWindowChangesNothingAndExitsWithItsOwnCode(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)
	withWindow(l, wednesdayNoon)

	err := l.apply()
	if code := cli.ExitCode(err); code != cli.ExitOutsideWindow {
		t.Fatalf("exit %d (%v), want %d", code, err, cli.ExitOutsideWindow)
	}

	want := "talops: apply waits for a maintenance window, no node was changed: cluster homelab is outside every window of talops.yaml, and the next maintenance window opens Sat 2026-12-05 02:00 CET (in 2d 14h); --ignore-window applies now"
	if !strings.HasPrefix(l.h.stderr.String(), want) {
		t.Errorf("stderr:\n%s\nwant the prefix:\n%s", l.h.stderr.String(), want)
	}

	// Not a node was asked anything: the window is checked before the plan is.
	if got := l.journal.Entries(); len(got) != 0 || l.nodes["k8s-node4"].Boots() != 0 {
		t.Errorf("node calls outside the window: %v", got)
	}
}

func TestApply_InsideAWindowApplies(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)
	withWindow(l, saturdayThree)

	if err := l.apply("--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	if l.nodes["k8s-node4"].Boots() != 1 || strings.Contains(l.h.stdout.String(), `"window"`) {
		t.Errorf("boots %d, report:\n%s", l.nodes["k8s-node4"].Boots(), l.h.stdout.String())
	}
}

func TestApply_IgnoreWindowAppliesAndTheReportRecordsIt(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)
	withWindow(l, wednesdayNoon)

	if err := l.apply("--ignore-window", "--format", "json"); err != nil {
		t.Fatalf("apply: %v\n%s", err, l.h.stderr.String())
	}

	var r struct{ Window string }
	if err := json.Unmarshal(l.h.stdout.Bytes(), &r); err != nil {
		t.Fatal(err)
	}

	want := "outside every maintenance window, applied with --ignore-window (the next maintenance window opens Sat 2026-12-05 02:00 CET (in 2d 14h))"
	if r.Window != want || l.nodes["k8s-node4"].Boots() != 1 {
		t.Errorf("window %q (want %q), boots %d", r.Window, want, l.nodes["k8s-node4"].Boots())
	}

	if err := l.apply("--ignore-window"); err != nil {
		t.Fatal(err)
	}

	if !strings.Contains(l.h.stdout.String(), "\nmaintenance window: outside every maintenance window, applied with --ignore-window") {
		t.Errorf("the text report does not record it:\n%s", l.h.stdout.String())
	}
}

func TestApply_ADryRunOutsideTheWindowPreviewsAndSaysARealApplyWouldWait(t *testing.T) {
	l := newApplyLab(t, nil, nil)
	addMotd(l)
	withWindow(l, wednesdayNoon)

	if err := l.apply("--dry-run"); err != nil {
		t.Fatalf("apply --dry-run: %v\n%s", err, l.h.stderr.String())
	}

	if !strings.Contains(l.h.stdout.String(), "maintenance window: outside every maintenance window: a dry run changes nothing, a real apply would wait") || l.nodes["k8s-node4"].Boots() != 0 {
		t.Errorf("boots %d, report:\n%s", l.nodes["k8s-node4"].Boots(), l.h.stdout.String())
	}
}
