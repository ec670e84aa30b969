// Command dial connects to an address and sends a message: dial NETWORK
// ADDRESS MESSAGE (NETWORK tcp or unix; a unix ADDRESS @name is an
// abstract socket). It says "dial ADDRESS: sent" or why not, and exits 0
// either way: the sandbox tests run it as an agent would, to see what it
// reaches.
package main

import (
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: dial NETWORK ADDRESS MESSAGE")
		os.Exit(2)
	}
	c, err := net.DialTimeout(os.Args[1], os.Args[2], time.Minute)
	if err == nil {
		_, err = c.Write([]byte(os.Args[3]))
		c.Close()
	}
	if err != nil {
		fmt.Printf("dial %s: %v\n", os.Args[2], err)
		return
	}
	fmt.Printf("dial %s: sent\n", os.Args[2])
}
