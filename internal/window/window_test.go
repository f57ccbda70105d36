package window

import (
	"testing"
	"time"
)

func TestSchedule_At(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}

	weekend := Window{Days: []time.Weekday{time.Saturday, time.Sunday}, Hour: 2, Length: 4 * time.Hour}
	nightly := Window{Hour: 23, Minute: 30, Length: 2 * time.Hour}

	at := func(s string) time.Time {
		t.Helper()

		v, err := time.ParseInLocation("2006-01-02 15:04", s, berlin)
		if err != nil {
			t.Fatal(err)
		}

		return v
	}

	tests := []struct {
		name     string
		windows  []Window
		now      string
		open     bool
		boundary string // Closes when open, Opens when not
	}{
		{"inside a weekend window", []Window{weekend}, "2026-12-05 03:00", true, "2026-12-05 06:00"},
		{"the opening minute is inside", []Window{weekend}, "2026-12-05 02:00", true, "2026-12-05 06:00"},
		{"the closing minute is outside", []Window{weekend}, "2026-12-05 06:00", false, "2026-12-06 02:00"},
		{"a weekday waits for saturday", []Window{weekend}, "2026-12-02 12:00", false, "2026-12-05 02:00"},
		{"sunday evening waits a week", []Window{weekend}, "2026-12-06 20:00", false, "2026-12-12 02:00"},
		{"a window past midnight is open the next morning", []Window{nightly}, "2026-12-03 01:00", true, "2026-12-03 01:30"},
		{"before a nightly window", []Window{nightly}, "2026-12-03 12:00", false, "2026-12-03 23:30"},
		{"overlapping windows close at the later end", []Window{weekend, {Days: []time.Weekday{time.Saturday}, Hour: 5, Length: 3 * time.Hour}}, "2026-12-05 05:30", true, "2026-12-05 08:00"},
		{"the wall clock holds across a DST change", []Window{weekend}, "2026-03-29 12:00", false, "2026-04-04 02:00"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Schedule{Location: berlin, Windows: tt.windows}.At(at(tt.now))

			got := st.Opens
			if tt.open {
				got = st.Closes
			}

			if st.Open != tt.open || !got.Equal(at(tt.boundary)) {
				t.Errorf("At(%s) = open %v, boundary %s; want open %v, boundary %s", tt.now, st.Open, got.In(berlin).Format("2006-01-02 15:04"), tt.open, tt.boundary)
			}
		})
	}
}

func TestSchedule_NoWindowsIsAlwaysOpen(t *testing.T) {
	if st := (Schedule{}).At(time.Unix(0, 0)); !st.Open {
		t.Errorf("an empty schedule is closed: %+v", st)
	}
}

func TestParseDays(t *testing.T) {
	tests := []struct {
		in   []string
		want []time.Weekday
		bad  bool
	}{
		{in: []string{"sat", "sun"}, want: []time.Weekday{time.Saturday, time.Sunday}},
		{in: []string{"Mon-Wed"}, want: []time.Weekday{time.Monday, time.Tuesday, time.Wednesday}},
		{in: []string{"fri-mon"}, want: []time.Weekday{time.Friday, time.Saturday, time.Sunday, time.Monday}},
		{in: []string{"saturday"}, bad: true},
		{in: []string{"mon", "mon-tue"}, bad: true},
		{in: []string{"mon-"}, bad: true},
	}

	for _, tt := range tests {
		got, err := ParseDays(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && !equalDays(got, tt.want)) {
			t.Errorf("ParseDays(%q) = %v, %v; want %v (error: %v)", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func equalDays(a, b []time.Weekday) bool {
	if len(a) != len(b) {
		return false
	}

	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}

	return true
}

func TestParseStartAndLength(t *testing.T) {
	for _, s := range []string{"24:00", "2:00", "02:60", "0200", "", "-1:00"} {
		if _, _, err := ParseStart(s); err == nil {
			t.Errorf("ParseStart(%q) took it", s)
		}
	}

	if h, m, err := ParseStart("23:45"); err != nil || h != 23 || m != 45 {
		t.Errorf("ParseStart(23:45) = %d, %d, %v", h, m, err)
	}

	for _, s := range []string{"0s", "-1h", "169h", "90s", "4 hours"} {
		if _, err := ParseLength(s); err == nil {
			t.Errorf("ParseLength(%q) took it", s)
		}
	}

	if d, err := ParseLength("1h30m"); err != nil || d != 90*time.Minute {
		t.Errorf("ParseLength(1h30m) = %v, %v", d, err)
	}
}

func TestDescribe_SaysWhenTheNextWindowOpens(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	st := Schedule{Windows: []Window{{Days: []time.Weekday{time.Saturday}, Hour: 2, Length: time.Hour}}}.At(now)

	want := "the next maintenance window opens Sat 2026-12-05 02:00 UTC (in 2d 14h)"
	if got := Describe(st, now); got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

func FuzzWindowFields(f *testing.F) {
	f.Add("mon-fri", "02:30", "4h")
	f.Add("sun", "23:59", "168h")

	f.Fuzz(func(t *testing.T, days, start, length string) {
		ds, errD := ParseDays([]string{days})
		h, m, errS := ParseStart(start)
		l, errL := ParseLength(length)

		if errD != nil || errS != nil || errL != nil {
			return
		}

		now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
		st := Schedule{Windows: []Window{{Days: ds, Hour: h, Minute: m, Length: l}}}.At(now)

		if !st.Open && st.Opens.IsZero() {
			t.Fatalf("closed with no next opening: %+v", st)
		}

		if st.Open && !st.Closes.After(now) {
			t.Fatalf("open, closing at %v, not after %v", st.Closes, now)
		}

		if !st.Open && !st.Opens.After(now) {
			t.Fatalf("closed, opening at %v, not after %v", st.Opens, now)
		}
	})
}
