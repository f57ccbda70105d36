package factory_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/factory/factorytest"
)

func TestVersions_ListsTheFactoryTags(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectVersions("v1.12.6", "v1.13.9", "v1.14.0")

	c, _ := newClient(t, fake)

	got, err := c.Versions(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"v1.12.6", "v1.13.9", "v1.14.0"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
}

func TestOfficialExtensions_DecodesEveryField(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectExtensions("v1.13.9",
		factorytest.Ext("siderolabs/nonfree-kmod-nvidia-lts", "580.95.05-v1.13.9"),
		factorytest.Ext("siderolabs/qemu-guest-agent", "10.0.2"),
	)

	c, _ := newClient(t, fake)

	got, err := c.OfficialExtensions(t.Context(), "1.13.9") // the "v" is added
	if err != nil {
		t.Fatal(err)
	}

	want := factorytest.Ext("siderolabs/nonfree-kmod-nvidia-lts", "580.95.05-v1.13.9")
	if len(got) != 2 || got[0] != (factory.Extension(want)) {
		t.Fatalf("OfficialExtensions = %+v, want first %+v", got, want)
	}

	if tag := got[0].Tag(); tag != "580.95.05-v1.13.9" {
		t.Errorf("Tag = %q", tag)
	}
}

func TestExtensionTag(t *testing.T) {
	for ref, want := range map[string]string{
		"ghcr.io/siderolabs/zfs:2.3.3-v1.13.9":     "2.3.3-v1.13.9",
		"localhost:5000/siderolabs/zfs:2.3.3":      "2.3.3",
		"localhost:5000/siderolabs/zfs":            "",
		"ghcr.io/siderolabs/zfs:2.3.3@sha256:abcd": "2.3.3",
		"": "",
	} {
		if got := (factory.Extension{Ref: ref}).Tag(); got != want {
			t.Errorf("Tag(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestOfficialExtensions_UnknownVersionIsAStatusErrorNotRetried(t *testing.T) {
	fake := factorytest.New(t)
	fake.ExpectExtensions("v9.9.9").Respond(http.StatusNotFound, "version not found")

	c, sl := newClient(t, fake)

	_, err := c.OfficialExtensions(t.Context(), "v9.9.9")

	var se *factory.StatusError
	if !errors.As(err, &se) || se.StatusCode != http.StatusNotFound || se.Body != "version not found" {
		t.Fatalf("error = %v, want a 404 *StatusError", err)
	}

	var ue *factory.UnavailableError
	if errors.As(err, &ue) {
		t.Errorf("a 404 was reported as the factory being down: %v", err)
	}

	if len(sl.got()) != 0 {
		t.Errorf("a 404 was retried: waits %v", sl.got())
	}
}

func TestVersions_UnexpectedCallFailsTheTest(t *testing.T) {
	// The fake is strict: a client calling what the test did not set up is
	// a failure reported by the fake (seen here through a recording T).
	rt := &recordingT{}
	fake := factorytest.New(rt)

	c, _ := newClient(t, fake)

	if _, err := c.Versions(t.Context()); err == nil {
		t.Error("Versions succeeded against a fake that expected nothing")
	}

	if errs := rt.finish(); len(errs) != 1 {
		t.Errorf("fake reported %q, want one unexpected request", errs)
	}
}

func TestStatusError_BodyIsQuotedOnOneLine(t *testing.T) {
	e := &factory.StatusError{Method: "GET", URL: "https://factory.talos.dev/x", StatusCode: http.StatusNotFound, Body: "no\r\nsuch\x1b[2J version"}

	if want := `GET https://factory.talos.dev/x: 404 Not Found: "no\r\nsuch\x1b[2J version"`; e.Error() != want {
		t.Errorf("error = %q, want %q", e.Error(), want)
	}
}

func TestOfficialExtensions_MalformedVersionIsNotAFactoryOutage(t *testing.T) {
	for _, v := range []string{"v1.13", "latest", "v1.13.9.1", "v01.13.9"} {
		t.Run(v, func(t *testing.T) {
			fake := factorytest.New(t)
			c, sl := newClient(t, fake)

			_, err := c.OfficialExtensions(t.Context(), v)

			var bad *factory.InvalidVersionError
			var down *factory.UnavailableError
			if !errors.As(err, &bad) || errors.As(err, &down) {
				t.Errorf("err = %v, want an InvalidVersionError, not the factory unavailable", err)
			}

			if n := len(fake.Requests()); n != 0 || len(sl.got()) != 0 {
				t.Errorf("%d requests and retries %v for a version the factory answers 500", n, sl.got())
			}
		})
	}
}

func TestFake_AnswersAMalformedVersionAsTheRealFactory(t *testing.T) {
	fake := factorytest.New(t)

	resp, err := fake.Client().Get(fake.URL() + "/version/v1.13/extensions/official")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck // read-only

	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want the real factory's 500", resp.StatusCode)
	}
}
