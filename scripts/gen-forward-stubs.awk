# Turns src/host/forward.list (one symbol per line) into x86-64 assembly: for
# each symbol an exported entry point that jumps through a slot. A slot starts
# at a lazy resolver, which saves the argument registers, asks
# hqr_forward_resolve() for the next library's address, stores it in the slot
# and jumps there. A tail jump keeps every argument (registers and stack) as
# the caller left them, whatever the routine's signature.
BEGIN { n = 0 }
/^[A-Za-z_][A-Za-z0-9_]*$/ { name[n++] = $1 }
END {
  print "# Generated from src/host/forward.list by scripts/gen-forward-stubs.awk. Do not edit."
  print "\t.text"
  for (i = 0; i < n; i++) {
    printf "\t.globl %s\n\t.type %s, @function\n\t.p2align 4\n%s:\n", name[i], name[i], name[i]
    printf "\tjmp *hqr_fwd_slot+%d(%%rip)\n\t.size %s, .-%s\n", 8 * i, name[i], name[i]
  }
  for (i = 0; i < n; i++)
    printf ".Llazy_%d:\n\tmovl $%d, %%r11d\n\tjmp hqr_fwd_lazy\n", i, i
  print "\t.p2align 4"
  print "\t.type hqr_fwd_lazy, @function"
  print "hqr_fwd_lazy:"
  print "\tpushq %rbp"
  print "\tmovq %rsp, %rbp"
  print "\tsubq $192, %rsp"
  print "\tandq $-16, %rsp"
  split("rdi rsi rdx rcx r8 r9 rax", gp, " ")
  for (k = 1; k <= 7; k++) printf "\tmovq %%%s, %d(%%rsp)\n", gp[k], 8 * (k - 1)
  for (k = 0; k < 8; k++) printf "\tmovdqa %%xmm%d, %d(%%rsp)\n", k, 64 + 16 * k
  print "\tmovl %r11d, %edi"
  print "\tcall hqr_forward_resolve"
  print "\tmovq %rax, %r11"
  for (k = 0; k < 8; k++) printf "\tmovdqa %d(%%rsp), %%xmm%d\n", 64 + 16 * k, k
  for (k = 1; k <= 7; k++) printf "\tmovq %d(%%rsp), %%%s\n", 8 * (k - 1), gp[k]
  print "\tmovq %rbp, %rsp"
  print "\tpopq %rbp"
  print "\tjmp *%r11"
  print "\t.size hqr_fwd_lazy, .-hqr_fwd_lazy"
  print "\t.section .data.rel.local,\"aw\""
  print "\t.p2align 3"
  print "\t.globl hqr_fwd_slot\n\t.hidden hqr_fwd_slot"
  print "hqr_fwd_slot:"
  for (i = 0; i < n; i++) printf "\t.quad .Llazy_%d\n", i
  print "\t.section .rodata.str1.1,\"aMS\",@progbits,1"
  for (i = 0; i < n; i++) printf ".Lname_%d:\n\t.asciz \"%s\"\n", i, name[i]
  print "\t.section .data.rel.ro.local,\"aw\""
  print "\t.p2align 3"
  print "\t.globl hqr_fwd_name\n\t.hidden hqr_fwd_name"
  print "hqr_fwd_name:"
  for (i = 0; i < n; i++) printf "\t.quad .Lname_%d\n", i
  print "\t.section .note.GNU-stack,\"\",@progbits"
}
