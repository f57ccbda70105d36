package backup_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/talops/talops/internal/backup"
	"github.com/talops/talops/internal/testlab/hostile"
)

func TestRetention_ExpiresOnlyThisClustersOldBackupsNeverTheNewest(t *testing.T) {
	t.Parallel()

	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := func(n int) string { return backup.Name("homelab", now.AddDate(0, 0, -n)) }
	names := []string{day(40), day(31), day(20), day(2), day(0), backup.Name("homelab-b", now.AddDate(0, 0, -90)), backup.Name("lab", now.AddDate(0, 0, -90))}

	tests := []struct {
		name string
		r    backup.Retention
		in   []string
		want []string
	}{
		{"no retention keeps everything", backup.Retention{}, names, nil},
		{"keep 2 lets the older go", backup.Retention{Keep: 2}, names, []string{day(40), day(31), day(20)}},
		{"keep within 30 days", backup.Retention{KeepWithin: 30 * 24 * time.Hour}, names, []string{day(40), day(31)}},
		{"a backup either rule keeps stays", backup.Retention{Keep: 4, KeepWithin: 3 * 24 * time.Hour}, names, []string{day(40)}},
		{"the newest stays however old", backup.Retention{KeepWithin: time.Hour}, []string{day(40), day(31)}, []string{day(40)}},
		{"another cluster's backups are never counted or deleted", backup.Retention{Keep: 1}, []string{backup.Name("homelab-b", now), day(5)}, nil},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			if got := tt.r.Expired(tt.in, "homelab", now); !slices.Equal(got, tt.want) {
				t.Errorf("Expired = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseAge(t *testing.T) {
	t.Parallel()

	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "4w": 28 * 24 * time.Hour, "12h": 12 * time.Hour, "36h30m": 36*time.Hour + 30*time.Minute} {
		if got, err := backup.ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}

	for in, want := range map[string]string{
		"30":        `"30" is not an age: use days (30d), weeks (4w) or hours (12h)`,
		"d":         `"d" is not an age: use days (30d), weeks (4w) or hours (12h)`,
		"-3d":       `"-3d" is not an age: use days (30d), weeks (4w) or hours (12h)`,
		"10m":       `"10m" is under an hour: a backup younger than that is the newest anyway`,
		"99999999d": `"99999999d" is not an age: use days (30d), weeks (4w) or hours (12h)`,
		"100000h":   `"100000h" is over ten years`,
	} {
		if _, err := backup.ParseAge(in); err == nil || err.Error() != want {
			t.Errorf("ParseAge(%q) = %v, want %s", in, err, want)
		}
	}
}

func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"30d", "4w", "12h", "36h30m", "-1d", "9223372036854775807d", "1e9h"} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, s string) {
		hostile.Bounded(t, func() {
			d, err := backup.ParseAge(s)
			if err == nil && (d < time.Hour || d > 10*365*24*time.Hour) {
				t.Errorf("ParseAge(%q) = %v: out of bounds", s, d)
			}
		})
	})
}

func FuzzParseS3(f *testing.F) {
	for _, s := range []string{"s3://b", "s3://b/p/q/", "s3:///p", "s3://b/../x", "s3://b//x", "s3://b/p?x=1", "gs://b"} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, s string) {
		hostile.Bounded(t, func() {
			bucket, prefix, err := backup.ParseS3(s)
			if err != nil {
				return
			}

			if bucket == "" || strings.Contains(bucket, "/") || strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/") {
				t.Errorf("ParseS3(%q) = %q, %q", s, bucket, prefix)
			}

			for _, seg := range strings.Split(prefix, "/") {
				if prefix != "" && (seg == "" || seg == "." || seg == "..") {
					t.Errorf("ParseS3(%q): prefix %q has segment %q", s, prefix, seg)
				}
			}
		})
	})
}
