"""providers/terms"""
