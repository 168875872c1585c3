"""providers/veo"""
