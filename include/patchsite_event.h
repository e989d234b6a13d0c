/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Static trace events for user programs: the kernel's TRACE_EVENT behind a
 * jump label, on libpatchsite's live patching (patchsite_event(3)).
 *
 *	PATCHSITE_EVENT(netsim, send,
 *			PATCHSITE_ARGS(int, len, const char *, host),
 *			"len=%d host=%s");
 *	patchsite_trace(netsim, send, len, compute_host());
 *	if (patchsite_event_enabled(netsim, send)) { ... }
 *
 * While an event is disabled each of its sites is ONE NOP of the arch
 * (x86-64: the 5-byte nopl) and no argument is evaluated: the arguments
 * are computed in the block the NOP becomes a jump to when the runtime
 * enables the event.  A program without the runtime runs with every event
 * disabled and needs nothing but this header.
 *
 * What the compiler emits, per linked object (executable or .so):
 *  - one descriptor per event, a weak hidden object in the writable section
 *    "patchsite_events" (every file including the header may define it; the
 *    linker keeps one per object, other copies stay as unreferenced bytes);
 *    no pointers in it are set at build time, so it needs no relocation;
 *  - one entry per site in the section "patchsite_event_sites" (retained,
 *    read-only): three pc-relative offsets, so PIE and shared objects need
 *    no text or data relocations:
 *	int32_t site;	 the NOP, minus the address of this field
 *	int32_t target;	 where the enabled site jumps, minus this field's address
 *	int64_t desc;	 the event's descriptor, minus this field's address
 * The layouts are described in patchsite_event(3); patchverify audits them.
 *
 * Field types: signed and unsigned integers up to 64 bits (enums too),
 * pointers, float and double, C strings (char * or const char *: copied,
 * cut at PATCHSITE_EVENT_STR_MAX bytes and marked cut), and a fixed byte
 * array written patchsite_bytes(N) (the argument is a pointer to N bytes).
 * Any other type is a compile-time error.  An event has 1 to 8 fields; the
 * format string is checked against them by the compiler (-Wformat; a
 * byte array is printed with %s, as hex).
 */
#ifndef PATCHSITE_EVENT_H
#define PATCHSITE_EVENT_H

#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
#include <type_traits>
#endif

#include "patchsite_branch.h"	/* patchsite_likely/unlikely: the branch profiler */

#define PATCHSITE_EVENT_MAGIC	0x56455350u	/* "PSEV" */
#define PATCHSITE_EVENT_VERSION	1
#define PATCHSITE_EVENT_STR_MAX	256

enum patchsite_field_kind {
	PATCHSITE_FIELD_SIGNED = 1,	/* size 1, 2, 4 or 8 */
	PATCHSITE_FIELD_UNSIGNED = 2,
	PATCHSITE_FIELD_POINTER = 3,
	PATCHSITE_FIELD_FLOAT = 4,	/* size 4 or 8 */
	PATCHSITE_FIELD_STRING = 5,	/* size: of the pointer */
	PATCHSITE_FIELD_BYTES = 6,	/* size: the array's bytes (1..1024) */
};

struct patchsite_event_field {
	uint8_t kind;			/* enum patchsite_field_kind */
	uint8_t reserved;
	uint16_t size;
};

/*
 * The fixed head of every descriptor.  fields[nfields] follow it at once,
 * then at text_off the text: "subsys\0name\0fmt\0" and for each field
 * "name\0type\0" (the type as written).  fire and rt are zero in the file;
 * the runtime sets them when it finds the event.
 */
struct patchsite_event {
	uint32_t magic;			/* PATCHSITE_EVENT_MAGIC */
	uint16_t version;		/* PATCHSITE_EVENT_VERSION */
	uint16_t nfields;
	uint32_t size;			/* bytes of the whole descriptor */
	uint32_t text_off;
	void (*fire)(const struct patchsite_event *ev, const uint64_t *args);
	void *rt;
};

/*
 * The NOP, what must come before it, and how asm names the descriptor's
 * symbol (aarch64 PIC: "S", a symbolic address, printed with %c).
 */
#if defined(__x86_64__)
/* nopl 0x0(%rax,%rax,1) */
#define PSEV__NOP_ASM	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"
#define PSEV__SYM		"i"
#elif defined(__aarch64__)
#define PSEV__NOP_ASM	"nop\n\t"
#define PSEV__SYM		"S"
#elif defined(__riscv) && __riscv_xlen == 64
/*
 * A 4-byte nop (addi x0, x0, 0) on a 4-byte boundary, so that one aligned
 * store switches it to `j` (compressed code is only 2-aligned: the
 * assembler pads with a c.nop and R_RISCV_ALIGN keeps the pad through
 * linker relaxation).  gcc 12 has no %c there; %0 of "i" prints the symbol.
 */
#define PSEV__PRE_ASM	".balign 4\n"
#define PSEV__NOP_ASM	".option push\n\t.option norvc\n\tnop\n\t.option pop\n\t"
#define PSEV__SYM		"i"
#define PSEV__ADDR		"%0"
#else
#error "patchsite_event.h: static trace events are implemented for x86-64, aarch64 and riscv64 only"
#endif
#ifndef PSEV__PRE_ASM
#define PSEV__PRE_ASM	""
#endif
#ifndef PSEV__ADDR
#define PSEV__ADDR		"%c0"
#endif

/*
 * One site: the NOP, and its entry in the site table.  Expanded inside a
 * function generated per event (PATCHSITE_EVENT), always inlined: each use
 * is a site of its own, with the label local to the copy (clang checks an
 * asm goto against every label of the function it is in).
 */
#define PSEV__SITE_ASM(desc, on)							\
	__asm__ goto(PSEV__PRE_ASM "1:\t" PSEV__NOP_ASM					\
		     ".pushsection patchsite_event_sites, \"aR\"\n\t"			\
		     ".balign 8\n\t"							\
		     ".long 1b - ., %l[" #on "] - .\n\t"				\
		     ".quad " PSEV__ADDR " - .\n\t"					\
		     ".popsection"							\
		     : : PSEV__SYM(&(desc)) : : on)

/* ---- field lists: PATCHSITE_ARGS(type, name, ...) as pairs ---- */
#define PATCHSITE_ARGS(...) __VA_ARGS__
#define PSEV__CAT(a, b) PSEV__CAT_(a, b)
#define PSEV__CAT_(a, b) a##b
#define PSEV__APPLY(m, ...) m(__VA_ARGS__)
#define PSEV__NP(...) PSEV__NP_(__VA_ARGS__, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0)
#define PSEV__NP_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n, ...) n
#define PSEV__MAP(m, s, ...) PSEV__CAT(PSEV__MAP, PSEV__NP(__VA_ARGS__))(m, s, __VA_ARGS__)
#define PSEV__MAP1(m, s, t, f) m(t, f)
#define PSEV__MAP2(m, s, t, f, ...) m(t, f) s() PSEV__MAP1(m, s, __VA_ARGS__)
#define PSEV__MAP3(m, s, t, f, ...) m(t, f) s() PSEV__MAP2(m, s, __VA_ARGS__)
#define PSEV__MAP4(m, s, t, f, ...) m(t, f) s() PSEV__MAP3(m, s, __VA_ARGS__)
#define PSEV__MAP5(m, s, t, f, ...) m(t, f) s() PSEV__MAP4(m, s, __VA_ARGS__)
#define PSEV__MAP6(m, s, t, f, ...) m(t, f) s() PSEV__MAP5(m, s, __VA_ARGS__)
#define PSEV__MAP7(m, s, t, f, ...) m(t, f) s() PSEV__MAP6(m, s, __VA_ARGS__)
#define PSEV__MAP8(m, s, t, f, ...) m(t, f) s() PSEV__MAP7(m, s, __VA_ARGS__)
#define PSEV__COMMA() ,
#define PSEV__NONE()

/* patchsite_bytes(N) in a type position: recognised by pasting, never expanded. */
#define PSEV__SECOND(...) PSEV__SECOND_(__VA_ARGS__, 0, 0)
#define PSEV__SECOND_(a, b, ...) b
#define PSEV__PROBE_patchsite_bytes(n) ~, 1
#define PSEV__BN_patchsite_bytes(n) n
#define PSEV__ISB(t) PSEV__SECOND(PSEV__PROBE_##t)
#define PSEV__IF(c) PSEV__CAT(PSEV__IF_, c)
#define PSEV__IF_1(...) __VA_ARGS__ PSEV__EAT
#define PSEV__IF_0(...) PSEV__ID
#define PSEV__EAT(...)
#define PSEV__ID(...) __VA_ARGS__

#ifdef __cplusplus
template <typename T, bool = std::is_integral<T>::value || std::is_enum<T>::value>
struct patchsite__sgn { static constexpr bool v = false; };
template <typename T> struct patchsite__sgn<T, true> { static constexpr bool v = T(-1) < T(0); };
template <typename T> struct patchsite__kind {
	static constexpr unsigned v =
		sizeof(T) > 8 ? 0 :
		std::is_same<T, const char *>::value || std::is_same<T, char *>::value
			? PATCHSITE_FIELD_STRING :
		std::is_pointer<T>::value ? PATCHSITE_FIELD_POINTER :
		std::is_floating_point<T>::value ? PATCHSITE_FIELD_FLOAT :
		std::is_integral<T>::value || std::is_enum<T>::value
			? (patchsite__sgn<T>::v ? PATCHSITE_FIELD_SIGNED : PATCHSITE_FIELD_UNSIGNED)
			: 0;
};
#define PSEV__KIND(t) (patchsite__kind<t>::v)
#define PSEV__STATIC_ASSERT static_assert
#else
#define PSEV__S PATCHSITE_FIELD_SIGNED
#define PSEV__U PATCHSITE_FIELD_UNSIGNED
#define PSEV__KIND(t) _Generic(*(t *)0, _Bool: PSEV__U, char: ((char)-1 < 0 ? PSEV__S : PSEV__U), \
	signed char: PSEV__S, unsigned char: PSEV__U, short: PSEV__S, unsigned short: PSEV__U, \
	int: PSEV__S, unsigned: PSEV__U, long: PSEV__S, unsigned long: PSEV__U,		\
	long long: PSEV__S, unsigned long long: PSEV__U, float: PATCHSITE_FIELD_FLOAT,	\
	double: PATCHSITE_FIELD_FLOAT, char *: PATCHSITE_FIELD_STRING,			\
	const char *: PATCHSITE_FIELD_STRING,						\
	default: (__builtin_classify_type(*(t *)0) == 5 ? PATCHSITE_FIELD_POINTER : 0))
#define PSEV__STATIC_ASSERT _Static_assert
#endif

/* Per field: the emit function's parameter, descriptor entry, text, packing, format check. */
#define PSEV__PARAM(t, f) PSEV__IF(PSEV__ISB(t))(const void *f)(t f)
#define PSEV__FIELD(t, f)								\
	PSEV__IF(PSEV__ISB(t))({ PATCHSITE_FIELD_BYTES, 0, PSEV__BN_##t })		\
		({ (uint8_t)PSEV__KIND(t), 0, sizeof(t) })
#define PSEV__TEXT(t, f) #f "\0" #t "\0"
#define PSEV__PUT(t, f) { uint64_t v_ = 0; __builtin_memcpy(&v_, &f, sizeof(f)); a_[i_++] = v_; }
#define PSEV__FMTARG(t, f) PSEV__IF(PSEV__ISB(t))((const char *)f)(f)
#define PSEV__CHECK(t, f)								\
	PSEV__IF(PSEV__ISB(t))(PSEV__STATIC_ASSERT(PSEV__BN_##t >= 1 && PSEV__BN_##t <= 1024, \
		"patchsite_bytes(N): N from 1 to 1024: " #f);)				\
		(PSEV__STATIC_ASSERT(PSEV__KIND(t) != 0,				\
			"patchsite event field type not supported (integers, pointers, " \
			"float, double, C strings, patchsite_bytes(N)): " #t " " #f);)

#define PSEV__EVT(s, n) patchsite__evt_##s##__##n
#define PSEV__EV(s, n) patchsite__ev_##s##__##n

static inline __attribute__((format(printf, 1, 2))) void patchsite__fmtcheck(const char *fmt, ...)
{
	(void)fmt;
}

static inline void patchsite__fire(const struct patchsite_event *ev, const uint64_t *args)
{
	void (*fn)(const struct patchsite_event *, const uint64_t *) =
		__atomic_load_n(&ev->fire, __ATOMIC_ACQUIRE);

	if (fn)
		fn(ev, args);
}

#define PSEV__TEXT_ALL(s, n, fmt, ...) \
	#s "\0" #n "\0" fmt "\0" PSEV__MAP(PSEV__TEXT, PSEV__NONE, __VA_ARGS__)

#define PATCHSITE_EVENT(s, n, args, fmt)						\
	struct PSEV__EVT(s, n) {							\
		struct patchsite_event h;						\
		struct patchsite_event_field f[PSEV__APPLY(PSEV__NP, args)];		\
		char text[sizeof(PSEV__TEXT_ALL(s, n, fmt, args))];			\
	};										\
	__attribute__((weak, visibility("hidden"), section("patchsite_events"), aligned(8))) \
	struct PSEV__EVT(s, n) PSEV__EV(s, n) = {					\
		{ PATCHSITE_EVENT_MAGIC, PATCHSITE_EVENT_VERSION,			\
		  PSEV__APPLY(PSEV__NP, args), sizeof(struct PSEV__EVT(s, n)),		\
		  offsetof(struct PSEV__EVT(s, n), text), 0, 0 },			\
		{ PSEV__APPLY(PSEV__MAP, PSEV__FIELD, PSEV__COMMA, args) },		\
		PSEV__TEXT_ALL(s, n, fmt, args)						\
	};										\
	static inline __attribute__((always_inline, unused)) int patchsite__on_##s##__##n(void) \
	{										\
		PSEV__SITE_ASM(PSEV__EV(s, n), patchsite__on);				\
		return 0;								\
	patchsite__on:									\
		return 1;								\
	}										\
	static inline __attribute__((unused)) void					\
	patchsite__emit_##s##__##n(PSEV__APPLY(PSEV__MAP, PSEV__PARAM, PSEV__COMMA, args)) \
	{										\
		uint64_t a_[PSEV__APPLY(PSEV__NP, args)];				\
		unsigned i_ = 0;							\
											\
		PSEV__APPLY(PSEV__MAP, PSEV__CHECK, PSEV__NONE, args)			\
		if (0)									\
			patchsite__fmtcheck(fmt, PSEV__APPLY(PSEV__MAP, PSEV__FMTARG,	\
						 PSEV__COMMA, args));			\
		PSEV__APPLY(PSEV__MAP, PSEV__PUT, PSEV__NONE, args)			\
		(void)i_;								\
		patchsite__fire(&PSEV__EV(s, n).h, a_);					\
	}										\
	struct PSEV__EVT(s, n)

/* Record the event if it is enabled; the arguments are evaluated only then, once each. */
#define patchsite_trace(s, n, ...)							\
	do {										\
		if (__builtin_expect(patchsite__on_##s##__##n(), 0))			\
			patchsite__emit_##s##__##n(__VA_ARGS__);			\
	} while (0)

/* True while the event is enabled: a site of its own (one NOP while disabled). */
#define patchsite_event_enabled(s, n) __builtin_expect(patchsite__on_##s##__##n(), 0)

#endif
