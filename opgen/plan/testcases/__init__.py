"""The tests the op tree carries: op_host, kernel UT, ST, golden, attr and optional cases."""
