package devgate

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"strings"
)

// InternalAddr returns a loopback address, free when it returns, for the
// server behind the gate. On Linux all of 127.0.0.0/8 reaches the loopback
// interface, so it is a random 127.x.y.z and a random port: about 40 bits a
// hostile page would have to scan. Elsewhere (macOS configures only
// 127.0.0.1) it is 127.0.0.1 and a random port, which a patient local page
// could find by scanning: there only the gated address is protected.
func InternalAddr() (string, error) {
	var last error
	for range 50 {
		var b [5]byte
		_, _ = rand.Read(b[:])
		host := "127.0.0.1"
		if runtime.GOOS == "linux" {
			// 127.x.y.z without .0 and .255 in the last place.
			host = fmt.Sprintf("127.%d.%d.%d", b[0], b[1], 1+int(b[2])%254)
		}
		port := 20000 + int(binary.BigEndian.Uint16(b[3:]))%(65536-20000)
		addr := net.JoinHostPort(host, strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			last = err
			continue
		}
		ln.Close()
		return addr, nil
	}
	return "", fmt.Errorf("finding a free loopback address for the dev server: %w", last)
}

// ParseArgs reads the development build's flags the gate needs from args
// (the command line without the program name): -devserver's value, and
// whether -real-data asks for the real data directory. Other flags are
// Wails' and left alone.
func ParseArgs(args []string) (addr string, realData bool) {
	for i := 0; i < len(args); i++ {
		name, value, hasValue := flagOf(args[i])
		switch name {
		case "devserver":
			if hasValue {
				addr = value
			} else if i+1 < len(args) {
				addr = args[i+1]
				i++
			}
		case "real-data":
			realData = !hasValue || (value != "false" && value != "0")
		}
	}
	return addr, realData
}

// RewriteArgs returns args with -devserver's value replaced by internal
// and -real-data removed (Wails stops reading flags at one it does not
// know), for Wails to read.
func RewriteArgs(args []string, internal string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		name, _, hasValue := flagOf(args[i])
		switch name {
		case "devserver":
			out = append(out, "-devserver", internal)
			if !hasValue {
				i++
			}
		case "real-data":
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// flagOf splits "-name", "--name" and "-name=value"; name is "" for an
// argument that is not a flag.
func flagOf(arg string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
		return "", "", false
	}
	arg = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, value, hasValue = strings.Cut(arg, "=")
	return name, value, hasValue
}
