"""tablecam.bus"""
