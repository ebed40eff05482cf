// notation-verify: the Notary Project signature check helmcrew runs for `verify.provider: notation`,
// built on notation-go (the notation CLI's module is not served by the module proxy this project
// builds from; its library is). Three subcommands:
//
//	verify  --reference host/repo@sha256:… --trust-policy trustpolicy.json --trust-store DIR
//	sign    --reference host/repo@sha256:… --key leaf.key --cert chain.pem   (tests only)
//	certs   --subject "CN=…,O=…" --out DIR                                  (tests only)
//
// Registry access (verify and sign): --plain-http, --ca-file, --client-cert/--client-key, and a
// docker config.json (--registry-config) with the login: never a password on the command line.
//
// Exit status, as cosign's (so the controller reads both the same way): 0 verified (stdout: one
// JSON line with the signer's certificate subject), 10 no signature, 12 signatures but none
// trusted, 11 the registry or artifact could not be read, 3 the trust policy or trust store
// cannot be used, 2 usage.
package main

import (
	"fmt"
	"os"
)

const (
	exitUsage        = 2
	exitBadTrust     = 3
	exitUnsigned     = 10
	exitUnreachable  = 11
	exitUntrusted    = 12
	exitSignFailed   = 1
	exitCertsFailure = 1
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "verify":
		os.Exit(runVerify(os.Args[2:]))
	case "sign":
		os.Exit(runSign(os.Args[2:]))
	case "certs":
		os.Exit(runCerts(os.Args[2:]))
	case "version":
		fmt.Println(version())
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: notation-verify verify|sign|certs|version [flags]")
	os.Exit(exitUsage)
}

// fail prints one `Error:` line (the controller quotes the last one) and returns code.
func fail(code int, format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "Error: "+format+"\n", args...)
	return code
}
