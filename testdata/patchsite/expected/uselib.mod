# tracer: function
#
# entries-in-buffer/entries-written: 1/1   #P:N
#
#           TASK-PID     CPU#     TIMESTAMP  FUNCTION
#              | |         |         |         |
TASK-PID [CPU] TIME: lib_inner <-lib_outer
