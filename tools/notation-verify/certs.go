package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// runCerts (tests only): a root CA and a code-signing certificate it issued, as the Notary
// Project's certificate requirements ask (CA: basic constraints and certSign; leaf: digitalSignature
// and the codeSigning extended key usage). Writes ca.crt, leaf.key and leaf.crt (leaf, then root).
func runCerts(args []string) int {
	fs := flag.NewFlagSet("certs", flag.ContinueOnError)
	subject := fs.String("subject", "", `the signer's subject, e.g. "C=US,ST=WA,L=Seattle,O=Example,CN=chart-signer"`)
	out := fs.String("out", "", "the folder to write to")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	name, err := parseSubject(*subject)
	if err != nil || *out == "" {
		return fail(exitUsage, "--subject C=…,ST=…,O=…,CN=… and --out are needed (%v)", err)
	}
	if err := writeCerts(name, *out); err != nil {
		return fail(exitCertsFailure, "%v", err)
	}
	return 0
}

func writeCerts(leafName pkix.Name, out string) error {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	caName := leafName
	caName.CommonName = leafName.CommonName + " root CA"
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: caName,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(30 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leafTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano() + 1), Subject: leafName,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(30 * 24 * time.Hour),
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTemplate, caCert, &leafKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(leafKey)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o700); err != nil {
		return err
	}
	pemOf := func(kind string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}) }
	files := map[string][]byte{
		"ca.crt":   pemOf("CERTIFICATE", caDER),
		"leaf.key": pemOf("PRIVATE KEY", keyDER),
		"leaf.crt": append(pemOf("CERTIFICATE", leafDER), pemOf("CERTIFICATE", caDER)...),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(out, name), content, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// parseSubject: "C=US,ST=WA,L=Seattle,O=Example,CN=name" (values without commas).
func parseSubject(text string) (pkix.Name, error) {
	var name pkix.Name
	for _, part := range strings.Split(text, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || value == "" {
			return name, fmt.Errorf("%q is not KEY=value", part)
		}
		switch key {
		case "C":
			name.Country = append(name.Country, value)
		case "ST":
			name.Province = append(name.Province, value)
		case "L":
			name.Locality = append(name.Locality, value)
		case "O":
			name.Organization = append(name.Organization, value)
		case "OU":
			name.OrganizationalUnit = append(name.OrganizationalUnit, value)
		case "CN":
			name.CommonName = value
		default:
			return name, fmt.Errorf("unknown attribute %q", key)
		}
	}
	if name.CommonName == "" {
		return name, fmt.Errorf("no CN")
	}
	return name, nil
}

// version: this tool's notation-go, from the build's module list.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "notation-verify (unknown build)"
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/notaryproject/notation-go" {
			return "notation-verify (notation-go " + dep.Version + ")"
		}
	}
	return "notation-verify"
}
