package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corex509 "github.com/notaryproject/notation-core-go/x509"
	"github.com/notaryproject/notation-go"
	notationregistry "github.com/notaryproject/notation-go/registry"
	"github.com/notaryproject/notation-go/verifier"
	"github.com/notaryproject/notation-go/verifier/trustpolicy"
	"github.com/notaryproject/notation-go/verifier/truststore"
	orasregistry "oras.land/oras-go/v2/registry"
)

// maxSignatures bounds the signatures read per artifact (notation's own default).
const maxSignatures = 50

func runVerify(args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var reg registryFlags
	reg.register(fs)
	reference := fs.String("reference", "", "host/repository@sha256:… (a digest: a tag may move)")
	policyFile := fs.String("trust-policy", "", "the trust policy document (trustpolicy.json, version 1.0)")
	storeDir := fs.String("trust-store", "", "a folder of trusted certificates (*.crt, *.pem)")
	timeout := fs.Duration("timeout", 50*time.Second, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	ref, err := orasregistry.ParseReference(*reference)
	if err != nil || ref.ValidateReferenceAsDigest() != nil {
		return fail(exitUsage, "--reference must be host/repository@sha256:… (got %q)", *reference)
	}
	policy, err := loadTrustPolicy(*policyFile, *reference)
	if err != nil {
		return fail(exitBadTrust, "trust policy: %v", err)
	}
	store, err := loadTrustStore(*storeDir)
	if err != nil {
		return fail(exitBadTrust, "trust store: %v", err)
	}
	v, err := verifier.New(policy, store, nil)
	if err != nil {
		return fail(exitBadTrust, "trust policy: %v", err)
	}
	remote, err := reg.repository(*reference)
	if err != nil {
		return fail(exitUnreachable, "registry: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	repo := notationregistry.NewRepository(remote)
	artifact, err := repo.Resolve(ctx, ref.Reference)
	if err != nil {
		return fail(exitUnreachable, "%s: %v", *reference, err)
	}
	// Counted first, so "not signed" is told from "signed by someone else" by what the registry holds, not by an error's wording.
	count := 0
	if err := repo.ListSignatures(ctx, artifact, func(sigs []ocispecDescriptor) error { count += len(sigs); return nil }); err != nil {
		return fail(exitUnreachable, "listing the signatures of %s: %v", *reference, err)
	}
	if count == 0 {
		return fail(exitUnsigned, "no notation signature is associated with %s", *reference)
	}
	_, outcomes, err := notation.Verify(ctx, v, repo, notation.VerifyOptions{ArtifactReference: *reference, MaxSignatureAttempts: maxSignatures})
	if err != nil {
		var failed notation.ErrorVerificationFailed
		if errors.As(err, &failed) {
			return fail(exitUntrusted, "no signature verifies against the trust policy and trust store: %s", oneLine(err))
		}
		return fail(exitUnreachable, "%s", oneLine(err))
	}
	signer := ""
	if len(outcomes) == 1 && outcomes[0].EnvelopeContent != nil && len(outcomes[0].EnvelopeContent.SignerInfo.CertificateChain) > 0 {
		signer = outcomes[0].EnvelopeContent.SignerInfo.CertificateChain[0].Subject.String()
	}
	if signer == "" {
		return fail(exitUntrusted, "notation named no signing certificate")
	}
	out, _ := json.Marshal(map[string]string{"signedBy": signer, "digest": artifact.Digest.String()})
	fmt.Println(string(out))
	return 0
}

// loadTrustPolicy reads and validates the document, and refuses one that has no statement for
// `reference` or skips its verification: a pass must name a signer.
func loadTrustPolicy(path, reference string) (*trustpolicy.Document, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc trustpolicy.Document
	decoder := json.NewDecoder(strings.NewReader(string(raw)))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s is not a trust policy document: %v", filepath.Base(path), err)
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	applicable, err := doc.GetApplicableTrustPolicy(reference)
	if err != nil {
		return nil, err
	}
	level, err := applicable.SignatureVerification.GetVerificationLevel()
	if err != nil {
		return nil, err
	}
	if level.Name == trustpolicy.LevelSkip.Name {
		return nil, fmt.Errorf("statement %q skips verification, which would pass an unsigned artifact", applicable.Name)
	}
	return &doc, nil
}

// flatTrustStore: every certificate of the folder, for any named store of type ca or
// signingAuthority (as Flux reads a notation Secret: the policy's store names are not folders).
type flatTrustStore struct{ certs []*x509.Certificate }

func (s flatTrustStore) GetCertificates(_ context.Context, storeType truststore.Type, namedStore string) ([]*x509.Certificate, error) {
	if storeType != truststore.TypeCA && storeType != truststore.TypeSigningAuthority {
		return nil, truststore.TrustStoreError{Msg: fmt.Sprintf("trust store %s:%s: only ca and signingAuthority stores are read", storeType, namedStore)}
	}
	return s.certs, nil
}

func loadTrustStore(dir string) (flatTrustStore, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return flatTrustStore{}, err
	}
	names := []string{}
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".crt") || strings.HasSuffix(e.Name(), ".pem")) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var certs []*x509.Certificate
	for _, name := range names {
		read, err := corex509.ReadCertificateFile(filepath.Join(dir, name))
		if err != nil {
			return flatTrustStore{}, fmt.Errorf("%s is not a PEM or DER certificate: %v", name, err)
		}
		if err := truststore.ValidateCertificates(read); err != nil {
			return flatTrustStore{}, fmt.Errorf("%s: %v", name, err)
		}
		certs = append(certs, read...)
	}
	if len(certs) == 0 {
		return flatTrustStore{}, errors.New("no certificate (*.crt, *.pem)")
	}
	return flatTrustStore{certs: certs}, nil
}

// oneLine: notation joins its reasons with newlines; the controller quotes one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
