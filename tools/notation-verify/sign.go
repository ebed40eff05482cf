package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	_ "github.com/notaryproject/notation-core-go/signature/cose" // registers the COSE envelope
	_ "github.com/notaryproject/notation-core-go/signature/jws"  // registers the JWS envelope
	"github.com/notaryproject/notation-go"
	notationregistry "github.com/notaryproject/notation-go/registry"
	"github.com/notaryproject/notation-go/signer"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

type ocispecDescriptor = ocispec.Descriptor

var envelopeTypes = map[string]string{"jws": "application/jose+json", "cose": "application/cose"}

// runSign (tests only): signs an artifact with a key and its certificate chain and pushes the
// signature as notation does (a referrer of the artifact, or its referrers tag).
func runSign(args []string) int {
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	var reg registryFlags
	reg.register(fs)
	reference := fs.String("reference", "", "host/repository@sha256:…")
	key := fs.String("key", "", "the signing key (PEM)")
	chain := fs.String("cert", "", "the signing certificate, then its chain (PEM)")
	format := fs.String("signature-format", "jws", "jws or cose")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	mediaType, ok := envelopeTypes[*format]
	if !ok {
		return fail(exitUsage, "--signature-format must be jws or cose")
	}
	s, err := signer.NewGenericSignerFromFiles(*key, *chain)
	if err != nil {
		return fail(exitSignFailed, "signing key: %v", err)
	}
	remote, err := reg.repository(*reference)
	if err != nil {
		return fail(exitSignFailed, "registry: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	desc, err := notation.Sign(ctx, s, notationregistry.NewRepository(remote), notation.SignOptions{
		SignerSignOptions: notation.SignerSignOptions{SignatureMediaType: mediaType},
		ArtifactReference: *reference,
	})
	if err != nil {
		return fail(exitSignFailed, "%s: %v", *reference, err)
	}
	fmt.Printf("signed %s\n", desc.Digest)
	return 0
}
