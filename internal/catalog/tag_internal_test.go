package catalog

import (
	"strings"
	"testing"
)

func TestValidTag_HasAtMost128Characters(t *testing.T) {
	longest := "v" + strings.Repeat("1", 127)

	if !validTag(longest) {
		t.Errorf("a tag of %d characters is refused, want it accepted", len(longest))
	}

	if validTag(longest + "1") {
		t.Errorf("a tag of %d characters is accepted, want it refused", len(longest)+1)
	}

	if validTag(".v1") {
		t.Error(`".v1" is accepted, want it refused: a tag starts with a letter, digit or '_'`)
	}
}

func TestValidDigest_HasAnEncodedPartOfAtLeast32Characters(t *testing.T) {
	shortest := "sha256:" + strings.Repeat("a", 32)

	if !validDigest(shortest) {
		t.Errorf("%q is refused, want it accepted", shortest)
	}

	if short := shortest[:len(shortest)-1]; validDigest(short) {
		t.Errorf("%q is accepted, want it refused: its encoded part has 31 characters", short)
	}

	if validDigest(strings.Repeat("a", 40)) {
		t.Error("a digest without an algorithm is accepted, want it refused")
	}
}
