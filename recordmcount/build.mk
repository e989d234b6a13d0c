RECORDMCOUNT_SRC := $(wildcard recordmcount/*.c)
RECORDMCOUNT_OBJ := $(RECORDMCOUNT_SRC:%.c=$(B)/obj/%.o)

all: $(B)/recordmcount

$(B)/recordmcount: $(RECORDMCOUNT_OBJ) $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS)

install: install-recordmcount
.PHONY: install-recordmcount
install-recordmcount: $(B)/recordmcount
	install -D -m 755 $(B)/recordmcount $(DESTDIR)$(PREFIX)/bin/recordmcount
	install -D -m 644 man/recordmcount.1 $(DESTDIR)$(PREFIX)/share/man/man1/recordmcount.1
