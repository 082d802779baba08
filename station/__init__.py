"""The station assembly, above the devices: the factory that builds a ``Station`` from its config
(the one module outside ``simulation/`` that imports the simulation), the hardware self-test, the
serial glue and the service watchdog."""
