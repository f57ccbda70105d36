package secrets_test

import (
	"os"
	"strings"
	"testing"

	"github.com/talops/talops/internal/testlab"
	"github.com/talops/talops/internal/testlab/hostile"
)

// FuzzBundle feeds TALOS_SECRETS (the same parser as a plain secrets file) arbitrary YAML:
// no panic, and an error of one line (the echo of values is held by the error tests).
func FuzzBundle(f *testing.F) {
	plain, err := os.ReadFile(testlab.Dir() + "/secrets.THROWAWAY.yaml")
	if err != nil {
		f.Fatal(err)
	}

	f.Add(string(plain))
	f.Add("cluster:\n  id: x\n")
	f.Add("certs: {os: {crt: !!binary AAAA}}\n")
	f.Add("- a\n- b\n")
	f.Add("cluster: " + hostile.AliasBomb(9) + "\n")

	c := testlab.Load(f, testlab.Files(f))

	f.Fuzz(func(t *testing.T, data string) {
		hostile.Bounded(t, func() {
			_, err := loader(map[string]string{"TALOS_SECRETS": data}).Load(c)
			if err == nil {
				return
			}

			msg := err.Error()
			if strings.Contains(strings.TrimSuffix(msg, "\n"), "\n") {
				t.Errorf("the error takes several lines: %q", msg)
			}

		})
	})
}
