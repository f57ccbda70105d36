//go:build unix

package cli

import "syscall"

// noFollow makes opening a symbolic link fail, closing the gap between writeFile's look
// at the path and its open.
const noFollow = syscall.O_NOFOLLOW
