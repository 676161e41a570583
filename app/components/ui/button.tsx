import { forwardRef, type AnchorHTMLAttributes, type ButtonHTMLAttributes, type MouseEvent } from "react";
import { cn } from "./cn";
import { SpinnerGlyph } from "./spinner";

/** Spec: small 24 px, middle 32 px (default), large 36 px high. */
export const buttonSizes = {
  small: "h-6 px-2 text-xs gap-1",
  middle: "h-8 px-4 text-sm gap-1.5",
  large: "h-9 px-5 text-base gap-2",
} as const;

export type ButtonSize = keyof typeof buttonSizes;
export type ButtonVariant = "contained" | "outlined" | "text";

/*
 * Hover darkens (a darker shade of the background or of the text), never lightens: the text keeps
 * at least the contrast it has at rest, which WCAG AA needs while the pointer is over the button.
 */
const variants: Record<ButtonVariant, { normal: string; danger: string }> = {
  contained: {
    normal: "border border-primary bg-primary text-white hover:border-primary-dark hover:bg-primary-dark",
    danger: "border border-red-600 bg-red-600 text-white hover:border-red-700 hover:bg-red-700",
  },
  outlined: {
    normal: "border border-primary bg-white text-primary hover:border-primary-dark hover:bg-gray-50 hover:text-primary-dark",
    danger: "border border-red-600 bg-white text-red-600 hover:border-red-700 hover:bg-red-50 hover:text-red-700",
  },
  text: {
    normal: "border border-transparent bg-transparent text-primary hover:bg-gray-100 hover:text-primary-dark",
    danger: "border border-transparent bg-transparent text-red-600 hover:bg-red-50 hover:text-red-700",
  },
};

function buttonLook(size: ButtonSize, variant: ButtonVariant, danger: boolean): string {
  return cn(
    "inline-flex shrink-0 items-center justify-center whitespace-nowrap rounded font-medium transition-colors",
    "focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary",
    buttonSizes[size],
    variants[variant][danger ? "danger" : "normal"],
  );
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  size?: ButtonSize;
  variant?: ButtonVariant;
  /** The spec's "delete" button type: red instead of the primary colour. */
  danger?: boolean;
  /** Shows the spinner, sets aria-busy and ignores clicks while true (the button keeps focus). */
  loading?: boolean;
};

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { size = "middle", variant = "contained", danger = false, loading = false, disabled, type = "button", className, onClick, children, ...props },
  ref,
) {
  const inert = disabled || loading;
  const handleClick = (event: MouseEvent<HTMLButtonElement>) => {
    // A loading button stays focusable (not `disabled`), so stop it submitting twice here.
    if (loading) {
      event.preventDefault();
      return;
    }
    onClick?.(event);
  };
  return (
    <button
      ref={ref}
      type={type}
      disabled={disabled}
      aria-busy={loading || undefined}
      aria-disabled={loading || undefined}
      onClick={handleClick}
      className={cn(buttonLook(size, variant, danger), inert && "cursor-not-allowed opacity-50", className)}
      {...props}
    >
      {loading && <SpinnerGlyph size={size === "small" ? 12 : 14} />}
      {children}
    </button>
  );
});

export type ButtonLinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { size?: ButtonSize; variant?: ButtonVariant; href: string };

/** A link that looks like a button: for what is a navigation (an installer, an app's URL scheme), not an action of the page. */
export function ButtonLink({ size = "middle", variant = "contained", className, children, ...props }: ButtonLinkProps) {
  return (
    <a className={cn(buttonLook(size, variant, false), "no-underline", className)} {...props}>
      {children}
    </a>
  );
}
