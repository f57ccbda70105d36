package sops_test

import (
	"os"
	"slices"
	"testing"

	"github.com/talops/talops/internal/secrets/sops"
)

func TestRecipients_OfAFileTheRealSopsEncrypted(t *testing.T) {
	data, err := os.ReadFile("../testdata/bundle.sops.yaml")
	if err != nil {
		t.Fatal(err)
	}

	got, err := sops.Recipients(data)
	if err != nil || !slices.Equal(got, []string{"age18r6sczqmajz2sx70wj4ay5h93cqmz3eq9l7edxa77289xe9x4yksjkr8c8"}) {
		t.Errorf("Recipients = %v, %v", got, err)
	}

	if got, err := sops.Recipients([]byte("cluster:\n  id: x\n")); got != nil || err != nil {
		t.Errorf("a plain file: %v, %v", got, err)
	}
}
