"""tablecam.sim"""
