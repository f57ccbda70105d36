package factory_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
)

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()

	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()

	c.now = c.now.Add(d)
}

func newClock() *clock { return &clock{now: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)} }

func TestVersions_CacheHitAvoidsTheCall(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.13.9") // once: a second request fails the test

	clk := newClock()
	dir := t.TempDir()
	c, _ := newClient(t, fake, factory.WithCache(dir, time.Hour), factory.WithClock(clk.Now))

	first, err := c.Versions(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	clk.Advance(59 * time.Minute)

	// A new client over the same directory, as the next CI step would be.
	c2, _ := newClient(t, fake, factory.WithCache(dir, time.Hour), factory.WithClock(clk.Now))

	second, err := c2.Versions(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	if !slices.Equal(first, second) || !slices.Equal(second, []string{"v1.13.9"}) {
		t.Errorf("cached = %v, fetched = %v", second, first)
	}
}

func TestOfficialExtensions_CachedPerVersion(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectExtensions("v1.13.9", factorytest.Ext("siderolabs/zfs", "2.3.3-v1.13.9"))
	fake.ExpectExtensions("v1.14.0", factorytest.Ext("siderolabs/zfs", "2.4.0-v1.14.0"))

	clk := newClock()
	c, _ := newClient(t, fake, factory.WithCache(t.TempDir(), time.Hour), factory.WithClock(clk.Now))

	for range 2 {
		for v, tag := range map[string]string{"v1.13.9": "2.3.3-v1.13.9", "v1.14.0": "2.4.0-v1.14.0"} {
			exts, err := c.OfficialExtensions(t.Context(), v)
			if err != nil {
				t.Fatal(err)
			}

			if len(exts) != 1 || exts[0].Tag() != tag {
				t.Errorf("%s: extensions = %+v, want zfs %s", v, exts, tag)
			}
		}
	}
}

func TestVersions_CacheExpiresAfterTTL(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.13.8")
	fake.ExpectVersions("v1.13.8", "v1.13.9")

	clk := newClock()
	c, _ := newClient(t, fake, factory.WithCache(t.TempDir(), time.Hour), factory.WithClock(clk.Now))

	if _, err := c.Versions(t.Context()); err != nil {
		t.Fatal(err)
	}

	clk.Advance(time.Hour)

	got, err := c.Versions(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"v1.13.8", "v1.13.9"}; !slices.Equal(got, want) {
		t.Errorf("after expiry Versions = %v, want the new list %v", got, want)
	}
}

func TestVersions_EntryFromTheFutureIsRefetched(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.13.8").Times(2)

	clk := newClock()
	c, _ := newClient(t, fake, factory.WithCache(t.TempDir(), time.Hour), factory.WithClock(clk.Now))

	if _, err := c.Versions(t.Context()); err != nil {
		t.Fatal(err)
	}

	clk.Advance(-time.Minute) // a clock set back must not make an entry live forever

	if _, err := c.Versions(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestVersions_CorruptCacheEntryIsRefetched(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.13.9").Times(2)

	clk := newClock()
	dir := t.TempDir()
	c, _ := newClient(t, fake, factory.WithCache(dir, time.Hour), factory.WithClock(clk.Now))

	if _, err := c.Versions(t.Context()); err != nil {
		t.Fatal(err)
	}

	entries, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries = %v, %v; want one", entries, err)
	}

	if err := os.WriteFile(entries[0], []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}

	got, err := c.Versions(t.Context())
	if err != nil || !slices.Equal(got, []string{"v1.13.9"}) {
		t.Errorf("Versions = %v, %v", got, err)
	}
}

func TestVersions_FailedFetchIsNotCached(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions().Respond(500, "boom")
	fake.ExpectVersions("v1.13.9")

	clk := newClock()
	c, _ := newClient(t, fake, factory.WithCache(t.TempDir(), time.Hour), factory.WithClock(clk.Now), factory.WithRetries(0))

	if _, err := c.Versions(t.Context()); err == nil {
		t.Fatal("first Versions succeeded; the fake answered 500")
	}

	if got, err := c.Versions(t.Context()); err != nil || !slices.Equal(got, []string{"v1.13.9"}) {
		t.Errorf("Versions = %v, %v", got, err)
	}
}

func TestRegister_NeverCached(t *testing.T) {
	s := gpuSchematic(t)
	fake := factorytest.New(t)
	fake.ExpectRegister(s).Times(2)

	c, _ := newClient(t, fake, factory.WithCache(t.TempDir(), time.Hour), factory.WithClock(newClock().Now))

	for range 2 {
		if _, err := c.RegisterVerified(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
}
