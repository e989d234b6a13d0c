-- tests/patchsite/libc_args_lua.sh's script: tables, sorting, strings, a file written and read
local t = {}
for i = 1, 200 do t[#t + 1] = string.rep("x", i % 17) .. i end
table.sort(t)
local f = assert(io.open(os.getenv("OUT"), "w"))
for i = 1, #t, 10 do f:write(t[i], "\n") end
f:close()
for l in io.lines(os.getenv("OUT")) do io.write(#l, " ") end
print(string.format("%d %s %5.2f", #t, t[1], math.pi))
print(os.time{year=2020, month=1, day=1, hour=0})
print(("a,b,,c"):gsub(",", ";"), ("%d"):rep(3, "|"))
