"""Tether: answers where every sentence is tied to the exact passage that supports it."""
