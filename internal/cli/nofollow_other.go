//go:build !unix

package cli

// noFollow is none where the flag does not exist: writeFile's look at the path remains.
const noFollow = 0
