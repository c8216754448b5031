"""tablecam.server"""
