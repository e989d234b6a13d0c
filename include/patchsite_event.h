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

/* The NOP, and how asm names the descriptor's symbol (aarch64 PIC: "S", a symbolic address). */
#if defined(__x86_64__)
#define PATCHSITE__NOP_ASM	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"	/* nopl 0x0(%rax,%rax,1) */
#define PATCHSITE__SYM		"i"
#elif defined(__aarch64__)
#define PATCHSITE__NOP_ASM	"nop\n\t"
#define PATCHSITE__SYM		"S"
#else
#error "patchsite_event.h: static trace events are implemented for x86-64 and aarch64 only"
#endif

/*
 * One site: the NOP, and its entry in the site table.  Expanded inside a
 * function generated per event (PATCHSITE_EVENT), always inlined: each use
 * is a site of its own, with the label local to the copy (clang checks an
 * asm goto against every label of the function it is in).
 */
#define PS__SITE_ASM(desc, on)							\
	__asm__ goto("1:\t" PATCHSITE__NOP_ASM					\
		     ".pushsection patchsite_event_sites, \"aR\"\n\t"		\
		     ".balign 8\n\t"						\
		     ".long 1b - ., %l[" #on "] - .\n\t"				\
		     ".quad %c0 - .\n\t"					\
		     ".popsection"						\
		     : : PATCHSITE__SYM(&(desc)) : : on)

/* ---- field lists: PATCHSITE_ARGS(type, name, ...) as pairs ---- */
#define PATCHSITE_ARGS(...) __VA_ARGS__
#define PS__CAT(a, b) PS__CAT_(a, b)
#define PS__CAT_(a, b) a##b
#define PS__APPLY(m, ...) m(__VA_ARGS__)
#define PS__NP(...) PS__NP_(__VA_ARGS__, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0)
#define PS__NP_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, n, ...) n
#define PS__MAP(m, s, ...) PS__CAT(PS__MAP, PS__NP(__VA_ARGS__))(m, s, __VA_ARGS__)
#define PS__MAP1(m, s, t, f) m(t, f)
#define PS__MAP2(m, s, t, f, ...) m(t, f) s() PS__MAP1(m, s, __VA_ARGS__)
#define PS__MAP3(m, s, t, f, ...) m(t, f) s() PS__MAP2(m, s, __VA_ARGS__)
#define PS__MAP4(m, s, t, f, ...) m(t, f) s() PS__MAP3(m, s, __VA_ARGS__)
#define PS__MAP5(m, s, t, f, ...) m(t, f) s() PS__MAP4(m, s, __VA_ARGS__)
#define PS__MAP6(m, s, t, f, ...) m(t, f) s() PS__MAP5(m, s, __VA_ARGS__)
#define PS__MAP7(m, s, t, f, ...) m(t, f) s() PS__MAP6(m, s, __VA_ARGS__)
#define PS__MAP8(m, s, t, f, ...) m(t, f) s() PS__MAP7(m, s, __VA_ARGS__)
#define PS__COMMA() ,
#define PS__NONE()

/* patchsite_bytes(N) in a type position: recognised by pasting, never expanded. */
#define PS__SECOND(...) PS__SECOND_(__VA_ARGS__, 0, 0)
#define PS__SECOND_(a, b, ...) b
#define PS__PROBE_patchsite_bytes(n) ~, 1
#define PS__BN_patchsite_bytes(n) n
#define PS__ISB(t) PS__SECOND(PS__PROBE_##t)
#define PS__IF(c) PS__CAT(PS__IF_, c)
#define PS__IF_1(...) __VA_ARGS__ PS__EAT
#define PS__IF_0(...) PS__ID
#define PS__EAT(...)
#define PS__ID(...) __VA_ARGS__

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
			? (patchsite__sgn<T>::v ? PATCHSITE_FIELD_SIGNED : PATCHSITE_FIELD_UNSIGNED) : 0;
};
#define PS__KIND(t) (patchsite__kind<t>::v)
#define PS__STATIC_ASSERT static_assert
#else
#define PS__S PATCHSITE_FIELD_SIGNED
#define PS__U PATCHSITE_FIELD_UNSIGNED
#define PS__KIND(t) _Generic((t)0, _Bool: PS__U, char: ((char)-1 < 0 ? PS__S : PS__U),	\
	signed char: PS__S, unsigned char: PS__U, short: PS__S, unsigned short: PS__U,	\
	int: PS__S, unsigned: PS__U, long: PS__S, unsigned long: PS__U,			\
	long long: PS__S, unsigned long long: PS__U, float: PATCHSITE_FIELD_FLOAT,	\
	double: PATCHSITE_FIELD_FLOAT, char *: PATCHSITE_FIELD_STRING,			\
	const char *: PATCHSITE_FIELD_STRING,						\
	default: (__builtin_classify_type((t)0) == 5 ? PATCHSITE_FIELD_POINTER : 0))
#define PS__STATIC_ASSERT _Static_assert
#endif

/* Per field: the emit function's parameter, descriptor entry, text, packing, format check. */
#define PS__PARAM(t, f) PS__IF(PS__ISB(t))(const void *f)(t f)
#define PS__FIELD(t, f)								\
	PS__IF(PS__ISB(t))({ PATCHSITE_FIELD_BYTES, 0, PS__BN_##t })		\
		({ (uint8_t)PS__KIND(t), 0, sizeof(t) })
#define PS__TEXT(t, f) #f "\0" #t "\0"
#define PS__PUT(t, f) { uint64_t v_ = 0; __builtin_memcpy(&v_, &f, sizeof(f)); a_[i_++] = v_; }
#define PS__FMTARG(t, f) PS__IF(PS__ISB(t))((const char *)f)(f)
#define PS__CHECK(t, f)								\
	PS__IF(PS__ISB(t))(PS__STATIC_ASSERT(PS__BN_##t >= 1 && PS__BN_##t <= 1024,	\
		"patchsite_bytes(N): N from 1 to 1024: " #f);)			\
		(PS__STATIC_ASSERT(PS__KIND(t) != 0, "patchsite event field type not supported "\
		"(integers, pointers, float, double, C strings, patchsite_bytes(N)): " #t " " #f);)

#define PS__EVT(s, n) patchsite__evt_##s##__##n
#define PS__EV(s, n) patchsite__ev_##s##__##n

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

#define PS__TEXT_ALL(s, n, fmt, ...) #s "\0" #n "\0" fmt "\0" PS__MAP(PS__TEXT, PS__NONE, __VA_ARGS__)

#define PATCHSITE_EVENT(s, n, args, fmt)						\
	struct PS__EVT(s, n) {								\
		struct patchsite_event h;						\
		struct patchsite_event_field f[PS__APPLY(PS__NP, args)];		\
		char text[sizeof(PS__TEXT_ALL(s, n, fmt, args))];			\
	};										\
	__attribute__((weak, visibility("hidden"), section("patchsite_events"), aligned(8))) \
	struct PS__EVT(s, n) PS__EV(s, n) = {						\
		{ PATCHSITE_EVENT_MAGIC, PATCHSITE_EVENT_VERSION,			\
		  PS__APPLY(PS__NP, args), sizeof(struct PS__EVT(s, n)),		\
		  offsetof(struct PS__EVT(s, n), text), 0, 0 },				\
		{ PS__APPLY(PS__MAP, PS__FIELD, PS__COMMA, args) },			\
		PS__TEXT_ALL(s, n, fmt, args)						\
	};										\
	static inline __attribute__((always_inline, unused)) int patchsite__on_##s##__##n(void) \
	{										\
		PS__SITE_ASM(PS__EV(s, n), patchsite__on);				\
		return 0;								\
	patchsite__on:									\
		return 1;								\
	}										\
	static inline __attribute__((unused)) void					\
	patchsite__emit_##s##__##n(PS__APPLY(PS__MAP, PS__PARAM, PS__COMMA, args))	\
	{										\
		uint64_t a_[PS__APPLY(PS__NP, args)];					\
		unsigned i_ = 0;							\
											\
		PS__APPLY(PS__MAP, PS__CHECK, PS__NONE, args)				\
		if (0)									\
			patchsite__fmtcheck(fmt, PS__APPLY(PS__MAP, PS__FMTARG, PS__COMMA, args)); \
		PS__APPLY(PS__MAP, PS__PUT, PS__NONE, args)				\
		(void)i_;								\
		patchsite__fire(&PS__EV(s, n).h, a_);					\
	}										\
	struct PS__EVT(s, n)

/* Record the event if it is enabled; the arguments are evaluated only then, once each. */
#define patchsite_trace(s, n, ...)							\
	do {										\
		if (__builtin_expect(patchsite__on_##s##__##n(), 0))			\
			patchsite__emit_##s##__##n(__VA_ARGS__);			\
	} while (0)

/* True while the event is enabled: a site of its own (one NOP while disabled). */
#define patchsite_event_enabled(s, n) __builtin_expect(patchsite__on_##s##__##n(), 0)

#endif
