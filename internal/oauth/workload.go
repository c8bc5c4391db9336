package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// maxWorkloadTokenBytes bounds a workload identity token file: a JWT is a
// few kilobytes; anything larger is not one.
const maxWorkloadTokenBytes = 64 << 10

// workloadGrant makes the grant parameters of workload identity federation
// (SEP-1933): the JWT in the file at path, which the platform keeps fresh,
// read anew for every token request and sent as the RFC 7523 assertion.
func workloadGrant(path string) func(context.Context, *oauthex.AuthServerMeta, string, []string) (url.Values, error) {
	return func(context.Context, *oauthex.AuthServerMeta, string, []string) (url.Values, error) {
		jwt, err := readWorkloadToken(path)
		if err != nil {
			return nil, err
		}
		return url.Values{"grant_type": {GrantJWTBearer}, "assertion": {jwt}}, nil
	}
}

// readWorkloadToken reads the JWT in the file at path.
func readWorkloadToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading the workload identity token: %w; check that the platform writes it there and Switchboard may read it", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkloadTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading the workload identity token %s: %w", path, err)
	}
	if len(data) > maxWorkloadTokenBytes {
		return "", fmt.Errorf("the workload identity token file %s is larger than %d KiB; it should hold one JWT", path, maxWorkloadTokenBytes>>10)
	}
	jwt := strings.TrimSpace(string(data))
	if jwt == "" {
		return "", errors.New("the workload identity token file " + path + " is empty")
	}
	if strings.Count(jwt, ".") != 2 || strings.ContainsAny(jwt, " \t\r\n") {
		return "", fmt.Errorf("the workload identity token file %s does not hold a JWT (three dot-separated parts)", path)
	}
	return jwt, nil
}
