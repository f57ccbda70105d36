package mask_test

import (
	"testing"

	"github.com/talops/talops/internal/mask"
)

func TestMasker_MasksLongerValuesWholeAndIgnoresShortOnes(t *testing.T) {
	m := mask.New("secret-token", "secret-token-extended", "abc")

	got := m.String("a secret-token-extended and a secret-token, abc stays")
	if want := "a *** and a ***, abc stays"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMasker_NilMasksNothing(t *testing.T) {
	var m *mask.Masker
	if m.String("x") != "x" || m.Values() != nil {
		t.Error("nil masker changed its input")
	}
}
