"""The deadline runner: timeouts, 托管 after the disconnect grace, the bots' replies and the
sweep of dead socket leases, in a thread of every served process or a command of its own."""
