-- The run of tests/patchsite/realprobes.sh: strings, tables, floats, sorting, patterns,
-- a chunk loaded at run time; no error, no coroutine (a longjmp leaves calls unreturned).
local t = {}
for i = 1, 60 do t[i] = string.format("%d:%g", i, i / 7) end
table.sort(t)
local s = table.concat(t, ",", 1, 20)
local n = 0
for w in s:gmatch("[^,]+") do n = n + #w end
local m = {}
for i = 1, 50 do m["k" .. i] = i * 1.5 end
local sum = 0.0
for k, v in pairs(m) do sum = sum + v end
print(n, sum, s:sub(1, 10), math.floor(sum), ("x"):rep(5), s:upper():len(), string.byte("A"), utf8.char(72, 228))
local f = load("return 1 + ...")
print(f(41))
