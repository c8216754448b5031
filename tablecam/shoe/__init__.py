"""tablecam.shoe"""
