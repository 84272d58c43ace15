"""The table sockets: authenticate, parse frames into intents, call the services, send."""
