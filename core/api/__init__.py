"""What every API view shares: errors, pagination, throttling, strict input."""
