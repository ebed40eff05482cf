package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"

	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// registryFlags: how the registry is reached, the same for verify and sign.
type registryFlags struct {
	plainHTTP  bool
	caFile     string
	clientCert string
	clientKey  string
	config     string
}

func (f *registryFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "talk to the registry over plain HTTP")
	fs.StringVar(&f.caFile, "ca-file", "", "PEM CA certificates the registry's TLS certificate is checked against")
	fs.StringVar(&f.clientCert, "client-cert", "", "PEM client certificate (mutual TLS)")
	fs.StringVar(&f.clientKey, "client-key", "", "PEM client key (mutual TLS)")
	fs.StringVar(&f.config, "registry-config", "", "a docker config.json whose auths hold the registry login")
}

// repository opens `reference`'s repository. When the registry does not serve the OCI referrers
// API (distribution 2.8 does not), oras-go finds and stores signatures under the referrers tag
// schema (`sha256-<digest>`), which every registry accepts.
func (f *registryFlags) repository(reference string) (*remote.Repository, error) {
	repo, err := remote.NewRepository(reference)
	if err != nil {
		return nil, err
	}
	repo.PlainHTTP = f.plainHTTP
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = nil // helmcrew refuses to route around its proxy rules: no proxy from the environment
	if f.caFile != "" || f.clientCert != "" {
		tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
		if f.caFile != "" {
			pem, err := os.ReadFile(f.caFile)
			if err != nil {
				return nil, err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("%s holds no PEM certificate", f.caFile)
			}
			tlsConfig.RootCAs = pool
		}
		if f.clientCert != "" {
			pair, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
			if err != nil {
				return nil, err
			}
			tlsConfig.Certificates = []tls.Certificate{pair}
		}
		transport.TLSClientConfig = tlsConfig
	}
	client := &auth.Client{Client: &http.Client{Transport: retry.NewTransport(transport)}, Cache: auth.NewCache()}
	client.SetUserAgent("helmcrew-notation-verify")
	if f.config != "" {
		cred, err := credentialFor(f.config, repo.Reference.Registry)
		if err != nil {
			return nil, err
		}
		if cred != auth.EmptyCredential {
			client.Credential = auth.StaticCredential(repo.Reference.Registry, cred)
		}
	}
	repo.Client = client
	return repo, nil
}

// credentialFor reads `{"auths": {"host": {"auth": base64(user:password)}}}`.
func credentialFor(path, host string) (auth.Credential, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return auth.EmptyCredential, err
	}
	var config struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(raw, &config); err != nil {
		return auth.EmptyCredential, fmt.Errorf("%s is not a docker config.json", path)
	}
	entry, ok := config.Auths[host]
	if !ok || entry.Auth == "" {
		return auth.EmptyCredential, nil
	}
	decoded, err := base64.StdEncoding.DecodeString(entry.Auth)
	if err != nil {
		return auth.EmptyCredential, fmt.Errorf("the login for %s is not base64", host)
	}
	user, password, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return auth.EmptyCredential, fmt.Errorf("the login for %s is not user:password", host)
	}
	return auth.Credential{Username: user, Password: password}, nil
}
