# tracer: function_graph
#
# CPU  TASK/PID         DURATION                  FUNCTION CALLS
# |     |    |           |   |                     |   |   |   |
CPU) TASK-PID | DURATION | dyn_inner();
CPU) TASK-PID | DURATION | dyn_inner();
