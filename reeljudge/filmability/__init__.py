"""Footage filmability judge: are the B-roll search terms filmable, relevant and varied?"""
