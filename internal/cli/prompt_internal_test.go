package cli

import (
	"io"
	"os"
	"testing"
)

// /dev/null is a character device, as a terminal is: a process started with it as stdin
// (a test, a service, a CI step) has nobody to answer, and must not be asked.
func TestPrompt_NobodyIsAskedOnDevNullOrAPipe(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close() //nolint:errcheck // the test is done with it

	if prompt(null, io.Discard) != nil {
		t.Error("stdin /dev/null is taken for a terminal")
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() //nolint:errcheck // the test is done with it
	defer w.Close() //nolint:errcheck // the test is done with it

	if prompt(r, io.Discard) != nil {
		t.Error("a pipe is taken for a terminal")
	}
}
