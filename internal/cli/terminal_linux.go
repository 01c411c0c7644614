package cli

import "syscall"

const termiosRequest = syscall.TCGETS
