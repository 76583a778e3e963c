// Command logger stands in for the fluent/fluent-bit:1.8 image of the docs'
// app-with-sidecar example: like fluent-bit's default configuration (cpu input, stdout
// output) it writes one record a second to stdout until it is told to stop.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	fmt.Println("[logger] started")
	for {
		select {
		case s := <-stop:
			fmt.Printf("[logger] %v received, exiting\n", s)
			return
		case t := <-tick.C:
			fmt.Printf("[0] cpu.local: [%d.%03d, {\"alive\"=>true}]\n", t.Unix(), t.Nanosecond()/1e6)
		}
	}
}
