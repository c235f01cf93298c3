"""The edge: HTTP routes, the table websocket, the web app's files, and input schemas."""
