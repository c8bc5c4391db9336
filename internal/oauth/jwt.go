package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// ClientAssertionType is the client_assertion_type of private_key_jwt (RFC 7523).
const ClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime is how long a client assertion is valid. Each token
// request signs a new one.
const assertionLifetime = 5 * time.Minute

// A signingKey is a parsed private key and its JWS algorithm.
type signingKey struct {
	alg string // "RS256" or "ES256"
	key crypto.Signer
}

// parseSigningKey reads a PEM private key: PKCS #8 ("PRIVATE KEY"), PKCS #1
// ("RSA PRIVATE KEY") or SEC 1 ("EC PRIVATE KEY"). RSA keys sign RS256 and
// must have at least 2048 bits; EC keys must be P-256 and sign ES256.
func parseSigningKey(pemData string) (*signingKey, error) {
	block, _ := pem.Decode([]byte(pemData))
	if block == nil {
		return nil, errors.New("private key is not PEM: expected -----BEGIN PRIVATE KEY-----")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing private key: %w", err)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("RSA key has %d bits; use at least 2048", k.N.BitLen())
		}
		return &signingKey{alg: "RS256", key: k}, nil
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("EC key is on %s; use P-256 (ES256)", k.Curve.Params().Name)
		}
		return &signingKey{alg: "ES256", key: k}, nil
	default:
		return nil, fmt.Errorf("unsupported private key type %T: use an RSA or P-256 EC key", key)
	}
}

// clientAssertion returns a JWT that authenticates clientID to the
// authorization server audience (RFC 7523 section 3). The audience is the
// issuer identifier, as draft-ietf-oauth-rfc7523bis requires, as a single
// string.
func (k *signingKey) clientAssertion(clientID, audience string, now time.Time) (string, error) {
	jwt, err := k.sign(map[string]any{"alg": k.alg, "typ": "JWT"}, map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"jti": rand.Text(),
		"iat": now.Unix(),
		"exp": now.Add(assertionLifetime).Unix(),
	})
	if err != nil {
		return "", fmt.Errorf("signing client assertion: %w", err)
	}
	return jwt, nil
}

// sign returns the compact JWS of claims under header, which names k.alg.
func (k *signingKey) sign(header, claims map[string]any) (string, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signingInput := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	digest := sha256.Sum256([]byte(signingInput))

	var sig []byte
	switch key := k.key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	case *ecdsa.PrivateKey:
		// JWS wants r||s, each 32 bytes (RFC 7518 section 3.4), not ASN.1.
		r, s, serr := ecdsa.Sign(rand.Reader, key, digest[:])
		if serr == nil {
			sig = make([]byte, 64)
			r.FillBytes(sig[:32])
			s.FillBytes(sig[32:])
		}
		err = serr
	default:
		err = fmt.Errorf("unsupported key type %T", k.key)
	}
	if err != nil {
		return "", err
	}
	return signingInput + "." + enc.EncodeToString(sig), nil
}
